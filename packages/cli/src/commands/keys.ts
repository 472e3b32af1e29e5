import type { ApiKeyView } from '@dossier/core';
import { ENVS } from '@dossier/core/vocabulary';
import type { Command, Context } from '../command.ts';
import { usageError } from '../errors.ts';
import { choiceHelp } from '../filters.ts';
import { shortDate } from '../format.ts';
import { sessionCall } from '../session.ts';
import { arg, dispatch } from '../subcommand.ts';

const orgId = (ctx: Context): string => {
  const org = typeof ctx.values.org === 'string' ? ctx.values.org : ctx.env.SERVICE_ORG_ID;
  if (!org) throw usageError('no org id', 'pass --org <id> or set SERVICE_ORG_ID');
  return org;
};

/** The project's keys, or with --org-keys the org's own keys (dsk_org_…, for invoking hosted agents). */
const base = (ctx: Context): string => (ctx.values['org-keys'] ? `/orgs/${orgId(ctx)}/api-keys` : `/orgs/${orgId(ctx)}/projects/${ctx.projectId()}/api-keys`);
const notFound = { notFoundHint: 'check --org and --project, and `dossier keys list`' };

const row = (k: ApiKeyView) => [
  k.id,
  k.env,
  k.name ?? '',
  `${k.prefix}…${k.lastFour}`,
  shortDate(k.createdAt),
  k.lastUsedAt ? shortDate(k.lastUsedAt) : 'never',
  k.revokedAt ? `revoked ${shortDate(k.revokedAt)}` : 'active',
];
const HEAD = ['ID', 'ENV', 'NAME', 'KEY', 'CREATED', 'LAST USED', 'STATE'];

async function list(ctx: Context) {
  const keys = await sessionCall<ApiKeyView[]>(ctx, 'GET', base(ctx), notFound);
  if (ctx.out.json) return ctx.out.value(keys);
  if (keys.length === 0) return ctx.out.info('no keys');
  ctx.out.table(HEAD, keys.map(row));
}

/** Print a new key once: on stdout alone when piped (so it can be captured), with a warning on a terminal. */
function showNewKey(ctx: Context, created: ApiKeyView & { key: string }) {
  if (ctx.out.json) return ctx.out.value(created);
  ctx.out.table(HEAD, [row(created)]);
  ctx.out.info('the key is shown only now; store it safely:');
  ctx.out.line(created.key);
}

async function create(ctx: Context) {
  const name = typeof ctx.values.name === 'string' ? ctx.values.name : undefined;
  const env = typeof ctx.values.env === 'string' ? ctx.values.env : 'live';
  const body = ctx.values['org-keys'] ? { name } : { env, name };
  showNewKey(ctx, await sessionCall<ApiKeyView & { key: string }>(ctx, 'POST', base(ctx), { json: body, ...notFound }));
}

async function rotate(ctx: Context) {
  if (ctx.values['org-keys']) throw usageError('org keys are not rotated', 'create a new org key, then revoke the old one');
  const id = arg(ctx, 1, 'the key id', 'dossier keys rotate <key-id>');
  showNewKey(ctx, await sessionCall<ApiKeyView & { key: string }>(ctx, 'POST', `${base(ctx)}/${id}/rotate`, notFound));
}

async function revoke(ctx: Context) {
  const id = arg(ctx, 1, 'the key id', 'dossier keys revoke <key-id>');
  await sessionCall(ctx, 'DELETE', `${base(ctx)}/${id}`, notFound);
  if (ctx.out.json) ctx.out.value({ id, revoked: true });
  else ctx.out.info(`revoked key ${id}: requests with it are refused from now on`);
}

export const keysCommand: Command = {
  name: 'keys',
  summary: "Manage the project's API keys (and the org's keys): list, create, rotate, revoke",
  usage: [
    'keys list [--org-keys]',
    `keys create [--env ${choiceHelp(ENVS)}] [--name n] [--org-keys]`,
    'keys rotate <key-id>',
    'keys revoke <key-id> [--org-keys]',
  ],
  description:
    'Needs a session of an org admin (`dossier login`) and --org (or SERVICE_ORG_ID) and --project. A new key is printed\n' +
    "once; listings show only its prefix and last four characters. --org-keys manages the org's own keys (dsk_org_…),\n" +
    "which invoke the org's hosted agents and open no project's data.",
  subcommands: [
    ['list', 'keys with their last use'],
    ['create', 'a new key (printed once)'],
    ['rotate <id>', 'replace a key; the old one stops at once'],
    ['revoke <id>', 'stop a key at once'],
  ],
  options: { org: { type: 'string' }, token: { type: 'string' }, env: { type: 'string' }, name: { type: 'string' }, 'org-keys': { type: 'boolean' } },
  optionHelp: [
    ['--org <id>', 'the org (default: $SERVICE_ORG_ID)'],
    [`--env <${choiceHelp(ENVS)}>`, 'create: which sandbox (default live)'],
    ['--name <label>', 'create: a label'],
    ['--org-keys', "the org's keys instead of the project's"],
    ['--token <jwt>', 'a session token (default: the saved session)'],
  ],
  examples: ['dossier keys list', 'dossier keys create --env test --name ci', 'dossier keys revoke 01a2…'],
  run: (ctx) => dispatch(ctx, 'keys', { list, create, rotate, revoke }),
};
