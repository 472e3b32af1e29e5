import { resolve } from 'node:path';
import type { Source, SourceRun } from '../api-types.ts';
import type { RequestOptions } from '../client.ts';
import type { Command, Context } from '../command.ts';
import { usageError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { intFlag } from '../filters.ts';
import { shortDate } from '../format.ts';
import { sessionCall } from '../session.ts';
import { arg, dispatch } from '../subcommand.ts';

/** A server-side source and a run of it, as the API shows them (issue 43). */
type SourceView = Source;
type RunView = SourceRun;

const notFound = { notFoundHint: 'check --org and --project, and `dossier sources list`' };

function orgId(ctx: Context): string {
  const org = typeof ctx.values.org === 'string' ? ctx.values.org : ctx.env.SERVICE_ORG_ID;
  if (!org) throw usageError('no org id', 'pass --org <id> or set SERVICE_ORG_ID (the org that owns the project)');
  return org;
}

const base = (ctx: Context): string => `/orgs/${orgId(ctx)}/projects/${ctx.projectId()}/sources`;
const call = <T>(ctx: Context, method: string, path: string, opts: RequestOptions = {}): Promise<T> =>
  sessionCall<T>(ctx, method, path, { ...opts, ...notFound });

const SOURCE_HEAD = ['ID', 'COLLECTION', 'WHERE', 'EVERY', 'MAX DELETE', 'STATE'];
const sourceRow = (s: SourceView) => [
  s.id,
  s.collectionId,
  s.kind === 's3' ? `s3://${s.location}` : s.location,
  s.intervalMinutes ? `${s.intervalMinutes} min` : 'on demand',
  `${Math.round(s.maxDeleteShare * 100)} %`,
  s.paused ? 'paused' : 'active',
];
const RUN_HEAD = ['RUN', 'STARTED', 'STATUS', 'ADDED', 'UPDATED', 'DELETED', 'UNCHANGED', 'FAILED', 'ERROR'];
const runRow = (r: RunView) => [r.id, shortDate(r.startedAt), r.status, ...[r.added, r.updated, r.deleted, r.unchanged, r.failed].map(String), r.error ?? ''];

function showSources(ctx: Context, sources: SourceView[], one = false): void {
  if (ctx.out.json) ctx.out.value(one ? sources[0] : sources);
  else if (sources.length === 0) ctx.out.info('no sources');
  else ctx.out.table(SOURCE_HEAD, sources.map(sourceRow));
}

async function list(ctx: Context) {
  showSources(ctx, await call<SourceView[]>(ctx, 'GET', base(ctx)));
}

/**
 * Where an S3 source reads, from `--s3 s3://bucket/prefix` (with --endpoint, --region), and its credentials from
 * --access-key-id or $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY: a secret never goes on the command line.
 */
function s3Source(ctx: Context, url: string): Record<string, unknown> {
  const match = /^s3:\/\/([^/]+)\/?(.*)$/.exec(url);
  if (!match)
    throw usageError(
      `--s3 must look like s3://bucket/prefix, got '${url}'`,
      'dossier sources add --s3 s3://docs/handbook -c handbook --endpoint http://127.0.0.1:9000',
    );
  const accessKeyId = typeof ctx.values['access-key-id'] === 'string' ? ctx.values['access-key-id'] : ctx.env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = ctx.env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey)
    throw usageError('an S3 source needs credentials', 'set AWS_ACCESS_KEY_ID (or --access-key-id) and AWS_SECRET_ACCESS_KEY; the server seals them');
  const endpoint = typeof ctx.values.endpoint === 'string' ? { endpoint: ctx.values.endpoint } : {};
  const region = typeof ctx.values.region === 'string' ? { region: ctx.values.region } : {};
  return { kind: 's3', bucket: match[1], prefix: match[2] ?? '', ...endpoint, ...region, accessKeyId, secretAccessKey };
}

async function add(ctx: Context) {
  const s3 = typeof ctx.values.s3 === 'string' ? ctx.values.s3 : null;
  const where =
    s3 !== null
      ? s3Source(ctx, s3)
      : {
          kind: 'folder',
          path: resolve(
            arg(ctx, 1, 'the folder on the server (or --s3 s3://bucket/prefix)', 'dossier sources add /srv/shared/handbook -c handbook --every 60'),
          ),
        };
  const every = intFlag(ctx.values, 'every', 5, 10080);
  const maxDelete = intFlag(ctx.values, 'max-delete', 0, 100);
  const body = {
    collectionId: await ctx.collection(),
    ...where,
    ...(every ? { intervalMinutes: every } : {}),
    ...(maxDelete !== undefined ? { maxDeletePercent: maxDelete } : {}),
  };
  showSources(ctx, [await call<SourceView>(ctx, 'POST', base(ctx), { json: body })], true);
}

const setPaused = (paused: boolean) => async (ctx: Context) => {
  const id = arg(ctx, 1, 'the source id', `dossier sources ${paused ? 'pause' : 'resume'} <source-id>`);
  showSources(ctx, [await call<SourceView>(ctx, 'PATCH', `${base(ctx)}/${id}`, { json: { paused } })], true);
};

async function remove(ctx: Context) {
  const id = arg(ctx, 1, 'the source id', 'dossier sources remove <source-id>');
  await call(ctx, 'DELETE', `${base(ctx)}/${id}`);
  if (ctx.out.json) ctx.out.value({ id, removed: true });
  else ctx.out.info(`removed source ${id} (its documents stay)`);
}

async function run(ctx: Context) {
  const id = arg(ctx, 1, 'the source id', 'dossier sources run <source-id>');
  const started = await call<RunView>(ctx, 'POST', `${base(ctx)}/${id}/runs`, { json: { force: Boolean(ctx.values.force) } });
  if (ctx.out.json) return ctx.out.value(started);
  ctx.out.info(`run ${started.id} started; \`dossier sources runs ${id}\` shows its counters`);
}

async function runs(ctx: Context) {
  const id = arg(ctx, 1, 'the source id', 'dossier sources runs <source-id>');
  const list = await call<RunView[]>(ctx, 'GET', `${base(ctx)}/${id}/runs`);
  if (ctx.out.json) return ctx.out.value(list);
  if (list.length === 0) return ctx.out.info('no runs yet');
  ctx.out.table(RUN_HEAD, list.map(runRow));
  return list[0]?.status === 'failed' ? EXIT.failure : EXIT.ok;
}

export const sourcesCommand: Command = {
  name: 'sources',
  summary: 'Server-side sources: folders on the server or S3 prefixes synced into collections, on demand or on a schedule',
  usage: [
    'sources list',
    'sources add <server-folder> -c <collection> [--every minutes] [--max-delete pct]',
    'sources add --s3 s3://bucket/prefix -c <collection> [--endpoint url] [--region r] [--access-key-id id]',
    'sources run <id> [--force]',
    'sources runs <id>',
    'sources pause|resume|remove <id>',
  ],
  description:
    'The folder is on the server, inside one it allows (DOSSIER_SOURCE_FOLDERS); to sync a folder of this machine use `dossier sync`.\n' +
    'An S3 prefix (any S3-protocol store) is read by the server with the credentials of $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY,\n' +
    'sealed by the server and never shown again; objects whose ETag did not change are skipped.\n' +
    'Sources belong to a project of an org: pass --org (or SERVICE_ORG_ID) and --project, with a session (`dossier login`); admins\n' +
    'add, run, pause and remove them, members list them. docs/sync.md says how runs count and delete (softly, for 7 days).',
  subcommands: [
    ['list', "the project's sources"],
    ['add <server-folder>', 'sync a server folder into the collection (-c)'],
    ['add --s3 <url>', 'sync an S3 prefix into it'],
    ['run <id>', 'sync now (--force: past the deletion limit)'],
    ['runs <id>', 'its latest runs with their counters (exit 1 when the latest failed)'],
    ['pause <id>', 'stop its scheduled runs'],
    ['resume <id>', 'schedule them again'],
    ['remove <id>', 'remove the source (its documents stay)'],
  ],
  options: {
    org: { type: 'string' },
    token: { type: 'string' },
    every: { type: 'string' },
    'max-delete': { type: 'string' },
    force: { type: 'boolean', short: 'f' },
    s3: { type: 'string' },
    endpoint: { type: 'string' },
    region: { type: 'string' },
    'access-key-id': { type: 'string' },
  },
  optionHelp: [
    ['--org <id>', 'the org owning the project (default: $SERVICE_ORG_ID)'],
    ['--token <jwt>', 'a session token (default: $SERVICE_TOKEN)'],
    ['--every <minutes>', 'add: sync every so many minutes, 5 to 10080 (default: on demand only)'],
    ['--max-delete <pct>', 'add: largest share of the synced documents one run deletes (default 20)'],
    ['-f, --force', 'run: delete past that share'],
    ['--s3 <s3://bucket/prefix>', 'add: an S3 prefix instead of a server folder'],
    ['--endpoint <url>', 'add --s3: an S3-protocol server (default: AWS)'],
    ['--region <region>', 'add --s3: the region (default us-east-1)'],
    ['--access-key-id <id>', 'add --s3: the access key id (default: $AWS_ACCESS_KEY_ID)'],
  ],
  examples: [
    'dossier sources add /srv/shared/handbook -c handbook --every 60',
    'dossier sources add --s3 s3://docs/handbook -c handbook --endpoint http://127.0.0.1:9000',
    'dossier sources run <source-id>',
    'dossier sources runs <source-id> --json',
  ],
  run: (ctx) => dispatch(ctx, 'sources', { list, add, run, runs, pause: setPaused(true), resume: setPaused(false), remove }),
};
