import { readFile } from 'node:fs/promises';
import type { WebhookDeliveryView, WebhookEndpointView } from '@dossier/core';
// Light entry points (no dependencies): the CLI bundle must not pull in the whole core.
import { EVENT_TYPES } from '@dossier/core/events';
import { verifySignature } from '@dossier/core/webhook-signing';
import type { Command, Context } from '../command.ts';
import { usageError } from '../errors.ts';
import { shortDate } from '../format.ts';
import { arg, dispatch } from '../subcommand.ts';

const notFound = { notFoundHint: "check --org and --project (the API key must be the project's) and `dossier webhooks list`" };

/** The org id (--org or SERVICE_ORG_ID): webhook routes live under /orgs/:orgId/projects/:projectId. */
function orgId(ctx: Context): string {
  const org = typeof ctx.values.org === 'string' ? ctx.values.org : ctx.env.SERVICE_ORG_ID;
  if (!org) throw usageError('no org id', 'pass --org <id> or set SERVICE_ORG_ID (the org that owns the project)');
  return org;
}

const base = (ctx: Context): string => `/orgs/${orgId(ctx)}/projects/${ctx.projectId()}/webhooks`;

/** --events a,b (or repeated); "all" or an empty value subscribes to every type. */
function eventsFlag(ctx: Context): string[] | undefined {
  const raw = ctx.values.events;
  if (raw === undefined) return undefined;
  const list = (Array.isArray(raw) ? raw : [raw])
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim())
    .filter((v) => v && v !== 'all');
  const unknown = list.filter((v) => !(EVENT_TYPES as readonly string[]).includes(v));
  if (unknown.length > 0) throw usageError(`unknown event type ${unknown.join(', ')}`, `use ${EVENT_TYPES.join(', ')} or all`);
  return list;
}

const endpointRow = (e: WebhookEndpointView) => [
  e.id,
  e.enabled ? 'on' : 'off',
  e.url,
  e.events.length ? e.events.join(',') : 'all',
  e.description ?? '',
  shortDate(e.createdAt),
];
const ENDPOINT_HEAD = ['ID', 'ENABLED', 'URL', 'EVENTS', 'DESCRIPTION', 'CREATED'];

async function list(ctx: Context) {
  const endpoints = await ctx.api().json<WebhookEndpointView[]>('GET', base(ctx), notFound);
  if (ctx.out.json) return ctx.out.value(endpoints);
  if (endpoints.length === 0) return ctx.out.info('no webhook endpoints');
  ctx.out.table(ENDPOINT_HEAD, endpoints.map(endpointRow));
}

async function create(ctx: Context) {
  const url = arg(ctx, 1, 'the HTTPS URL', 'dossier webhooks create https://example.com/hooks --events document.ready');
  const description = typeof ctx.values.description === 'string' ? ctx.values.description : undefined;
  const created = await ctx
    .api()
    .json<WebhookEndpointView & { secret: string }>('POST', base(ctx), { json: { url, events: eventsFlag(ctx), description }, ...notFound });
  if (ctx.out.json) return ctx.out.value(created);
  ctx.out.table(ENDPOINT_HEAD, [endpointRow(created)]);
  ctx.out.info(`signing secret (shown only now): ${created.secret}`);
}

async function update(ctx: Context) {
  const id = arg(ctx, 1, 'the endpoint id', 'dossier webhooks update <endpoint-id> --disable');
  if (ctx.values.enable && ctx.values.disable) throw usageError('--enable and --disable contradict each other');
  const patch = {
    ...(typeof ctx.values.url === 'string' ? { url: ctx.values.url } : {}),
    ...(ctx.values.events !== undefined ? { events: eventsFlag(ctx) } : {}),
    ...(typeof ctx.values.description === 'string' ? { description: ctx.values.description } : {}),
    ...(ctx.values.enable ? { enabled: true } : ctx.values.disable ? { enabled: false } : {}),
  };
  if (Object.keys(patch).length === 0) throw usageError('nothing to update', 'pass --url, --events, --description, --enable or --disable');
  const updated = await ctx.api().json<WebhookEndpointView>('PATCH', `${base(ctx)}/${id}`, { json: patch, ...notFound });
  if (ctx.out.json) return ctx.out.value(updated);
  ctx.out.table(ENDPOINT_HEAD, [endpointRow(updated)]);
}

async function remove(ctx: Context) {
  const id = arg(ctx, 1, 'the endpoint id', 'dossier webhooks delete <endpoint-id>');
  await ctx.api().json('DELETE', `${base(ctx)}/${id}`, notFound);
  if (ctx.out.json) ctx.out.value({ id, deleted: true });
  else ctx.out.info(`deleted webhook endpoint ${id} and its delivery history`);
}

async function deliveries(ctx: Context) {
  const id = arg(ctx, 1, 'the endpoint id', 'dossier webhooks deliveries <endpoint-id> -n 20');
  const limit = typeof ctx.values.limit === 'string' ? `?limit=${encodeURIComponent(ctx.values.limit)}` : '';
  const rows = await ctx.api().json<WebhookDeliveryView[]>('GET', `${base(ctx)}/${id}/deliveries${limit}`, notFound);
  if (ctx.out.json) return ctx.out.value(rows);
  if (rows.length === 0) return ctx.out.info('no deliveries yet');
  ctx.out.table(
    ['ID', 'TYPE', 'STATUS', 'ATTEMPTS', 'LAST', 'HTTP', 'RESPONSE'],
    rows.map((d) => [
      d.id,
      d.eventType,
      d.status,
      String(d.attempts),
      d.lastAttemptAt ? shortDate(d.lastAttemptAt) : '',
      d.responseStatus ? String(d.responseStatus) : '',
      (d.responseBody ?? '').replace(/\s+/g, ' ').slice(0, 60),
    ]),
  );
}

async function retry(ctx: Context) {
  const id = arg(ctx, 1, 'the endpoint id', 'dossier webhooks retry <endpoint-id> <delivery-id>');
  const deliveryId = arg(ctx, 2, 'the delivery id', 'dossier webhooks retry <endpoint-id> <delivery-id>');
  const reset = await ctx.api().json<WebhookDeliveryView>('POST', `${base(ctx)}/${id}/deliveries/${deliveryId}/retry`, notFound);
  if (ctx.out.json) return ctx.out.value(reset);
  ctx.out.info(`delivery ${reset.id} restarted (attempts reset to 0)`);
}

/** Check a saved body against its X-Service-Signature; exit 1 when it does not match. Needs no server. */
async function verify(ctx: Context) {
  const file = typeof ctx.values.body === 'string' ? ctx.values.body : undefined;
  const signature = typeof ctx.values.signature === 'string' ? ctx.values.signature : undefined;
  const secret = typeof ctx.values.secret === 'string' ? ctx.values.secret : ctx.env.SERVICE_WEBHOOK_SECRET;
  if (!file || !signature || !secret) {
    throw usageError('verify needs --body <file>, --signature <sha256=…> and --secret <hex> (or SERVICE_WEBHOOK_SECRET)');
  }
  const ok = verifySignature(secret, await readFile(file), signature);
  if (ctx.out.json) ctx.out.value({ valid: ok });
  else ctx.out.info(ok ? 'valid: the body was signed with this secret' : 'INVALID: the signature does not match this body and secret');
  return ok ? 0 : 1;
}

export const webhooksCommand: Command = {
  name: 'webhooks',
  summary: 'Manage webhook endpoints, read their delivery log, retry a delivery, verify a signature',
  usage: [
    'webhooks list',
    'webhooks create <https-url> [--events a,b] [--description text]',
    'webhooks update <endpoint-id> [--url u] [--events a,b|all] [--description text] [--enable|--disable]',
    'webhooks delete <endpoint-id>',
    'webhooks deliveries <endpoint-id> [-n 50]',
    'webhooks retry <endpoint-id> <delivery-id>',
    'webhooks verify --body <file> --signature <sha256=…> --secret <hex>',
  ],
  description:
    'Endpoints belong to a project of an org: pass --org (or SERVICE_ORG_ID) and --project. The signing secret is shown once,\n' +
    `by create. Event types: ${EVENT_TYPES.join(', ')}. verify checks a saved raw body offline.`,
  subcommands: [
    ['list', 'endpoints of the project (no secrets)'],
    ['create <url>', 'add an endpoint; prints its secret once'],
    ['update <id>', 'change url, events, description or enabled'],
    ['delete <id>', 'delete an endpoint and its deliveries'],
    ['deliveries <id>', 'newest deliveries with status, attempts and response'],
    ['retry <id> <delivery>', 'restart a delivery'],
    ['verify', 'check a body file against a signature and secret'],
  ],
  options: {
    org: { type: 'string' },
    events: { type: 'string', multiple: true },
    description: { type: 'string' },
    url: { type: 'string' },
    enable: { type: 'boolean' },
    disable: { type: 'boolean' },
    limit: { type: 'string', short: 'n' },
    body: { type: 'string' },
    signature: { type: 'string' },
    secret: { type: 'string' },
  },
  optionHelp: [
    ['--org <id>', 'the org owning the project (default: $SERVICE_ORG_ID)'],
    ['--events <a,b>', 'create/update: subscribed types (all: every type)'],
    ['--description <text>', 'create/update: a label'],
    ['--url <url>', 'update: the new URL'],
    ['--enable, --disable', 'update: resume or pause deliveries'],
    ['-n, --limit <n>', 'deliveries: how many (max 100, default 50)'],
    ['--body <file>', 'verify: the raw body as received'],
    ['--signature <sig>', 'verify: the X-Service-Signature header'],
    ['--secret <hex>', 'verify: the endpoint secret (default: $SERVICE_WEBHOOK_SECRET)'],
  ],
  examples: [
    'dossier webhooks create https://example.com/hooks --events document.ready,document.error',
    'dossier webhooks deliveries 8a41… -n 10',
    'dossier webhooks verify --body body.json --signature "sha256=…" --secret $SECRET',
  ],
  run: (ctx) => dispatch(ctx, 'webhooks', { list, create, update, delete: remove, deliveries, retry, verify }),
};
