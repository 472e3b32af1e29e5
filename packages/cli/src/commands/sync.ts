import { watch } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command, Context } from '../command.ts';
import { CliError, usageError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { intFlag } from '../filters.ts';
import { aborted } from '../pool.ts';
import { Pace } from '../upload/pace.ts';
import type { HashCache } from '../sync/local.ts';
import { DEFAULT_MAX_DELETE_SHARE, type SyncEvent, type SyncOptions, type SyncResult, syncFolder } from '../sync/sync.ts';

/** A burst of saves within this long is one change (--watch). */
const WATCH_DEBOUNCE_MS = 750;

async function folderOf(ctx: Context): Promise<string> {
  const folder = ctx.positionals[0];
  if (!folder) throw usageError('give the folder to sync', 'dossier sync ./docs -c handbook');
  const s = await stat(folder).catch(() => null);
  if (!s?.isDirectory()) throw new CliError(`${folder} is not a folder`, EXIT.usage, 'sync mirrors a folder; upload single files with `dossier upload`');
  return resolve(folder);
}

async function optionsOf(ctx: Context): Promise<SyncOptions> {
  if (ctx.positionals.length > 2) throw usageError('sync takes a folder and at most a collection', 'dossier sync ./docs <collection>');
  const folder = await folderOf(ctx);
  const api = ctx.api();
  const collection = ctx.positionals[1] ? await resolveNamed(ctx, ctx.positionals[1]) : await ctx.collection();
  const percent = intFlag(ctx.values, 'max-delete', 0, 100);
  const concurrency = intFlag(ctx.values, 'concurrency', 1, 16) ?? 4;
  const pace = new Pace(concurrency, (status, waitMs) => {
    if (ctx.out.json) ctx.out.event({ type: 'busy', status, retryInMs: Math.round(waitMs) });
  });
  return {
    api,
    collection,
    folder,
    concurrency,
    delete: Boolean(ctx.values.delete),
    dryRun: Boolean(ctx.values['dry-run']),
    force: Boolean(ctx.values.force),
    maxDeleteShare: percent === undefined ? DEFAULT_MAX_DELETE_SHARE : percent / 100,
    attempt: (request) => pace.run(request, ctx.signal),
    signal: ctx.signal,
    onEvent: (e) => printEvent(ctx, e),
  };
}

/** A collection given as the second argument: the same resolution as -c (an id or a name). */
async function resolveNamed(ctx: Context, value: string): Promise<string> {
  ctx.values.collection = value;
  return ctx.collection();
}

function printEvent(ctx: Context, e: SyncEvent): void {
  if (ctx.out.json) ctx.out.event(e);
  else if (e.type === 'failed') ctx.out.warn(`${e.path}: ${e.error}`);
  else ctx.out.info(`${{ added: '+', replaced: '~', deleted: '-' }[e.type]} ${e.path}`);
}

function printPlan(ctx: Context, r: SyncResult): void {
  const p = r.plan;
  if (ctx.out.json) {
    ctx.out.event({
      type: 'plan',
      add: p.add.map((f) => f.path),
      replace: p.replace.map((x) => x.file.path),
      delete: p.remove.map((e) => e.path),
      unchanged: p.unchanged,
      dryRun: r.dryRun,
    });
    return;
  }
  for (const f of p.add) ctx.out.line(`+ ${f.path}`);
  for (const x of p.replace) ctx.out.line(`~ ${x.file.path}`);
  for (const e of p.remove) ctx.out.line(`- ${e.path}`);
  ctx.out.info(
    `plan: ${p.add.length} to add, ${p.replace.length} to replace, ${p.remove.length} to delete, ${p.unchanged} unchanged (dry run: nothing changed)`,
  );
}

function printSummary(ctx: Context, r: SyncResult, ms: number): number {
  const counts = { added: r.added, updated: r.replaced, deleted: r.deleted, unchanged: r.unchanged, failed: r.failed };
  if (ctx.out.json) ctx.out.event({ type: 'summary', ...counts, ms });
  else
    ctx.out.info(
      `${r.added} added, ${r.replaced} replaced, ${r.deleted} deleted, ${r.unchanged} unchanged${r.failed ? `, ${r.failed} failed` : ''} (${(ms / 1000).toFixed(1)} s)`,
    );
  return r.failed > 0 ? EXIT.failure : EXIT.ok;
}

async function once(ctx: Context, o: SyncOptions): Promise<number> {
  const started = Date.now();
  const r = await syncFolder(o);
  if (r.dryRun) {
    printPlan(ctx, r);
    return EXIT.ok;
  }
  return printSummary(ctx, r, Date.now() - started);
}

/** --watch: sync, then sync again after each burst of changes in the folder, until Ctrl-C. */
async function watchFolder(ctx: Context, o: SyncOptions): Promise<number> {
  const cache: HashCache = new Map();
  const run = { ...o, cache };
  await once(ctx, run);
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> = Promise.resolve();
  const watcher = watch(o.folder, { recursive: true, signal: ctx.signal }, () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      running = running.then(() => once(ctx, run)).catch((err) => ctx.out.warn((err as Error).message));
    }, WATCH_DEBOUNCE_MS);
  });
  watcher.on('error', () => {});
  if (!ctx.out.json) ctx.out.info(`watching ${o.folder} (Ctrl-C to stop)`);
  await aborted(ctx.signal).catch(() => {});
  if (timer) clearTimeout(timer);
  await running;
  return EXIT.ok;
}

export const syncCommand: Command = {
  name: 'sync',
  summary: 'Mirror a folder into a collection: add new files, replace changed ones, optionally delete removed ones',
  usage: ['sync <folder> [collection] [--delete [--force] [--max-delete pct]] [--dry-run] [--watch] [-j n]'],
  description:
    "Compares the folder with the collection's manifest (GET /collections/:id/manifest: path and SHA-256 of each synced\n" +
    'document): a new path is uploaded, a changed file replaces its document (same id, next version; the old content\n' +
    'answers searches until the new is ready), and with --delete a document whose file is gone is deleted. Small files\n' +
    "go 100 to a request. .dossierignore at the folder's root takes gitignore rules (.git/ and node_modules/ are always\n" +
    'skipped). An interrupted sync resumes when run again: the manifest says what the server already has.\n' +
    'Safety: a sync that would delete more than --max-delete percent (default 20) of the synced documents is refused\n' +
    'unless --force. With --json: NDJSON events added/replaced {path, documentId, version}, deleted, failed {path, error},\n' +
    'busy, plan (with --dry-run) and summary {added, updated, deleted, unchanged, failed, ms}. Exit 1 when a file failed.',
  options: {
    delete: { type: 'boolean' },
    'dry-run': { type: 'boolean', short: 'n' },
    force: { type: 'boolean', short: 'f' },
    'max-delete': { type: 'string' },
    watch: { type: 'boolean', short: 'w' },
    concurrency: { type: 'string', short: 'j' },
  },
  optionHelp: [
    ['--delete', 'delete documents whose files are no longer in the folder'],
    ['-n, --dry-run', 'print what would be added, replaced and deleted; change nothing'],
    ['-f, --force', 'with --delete: delete even more than --max-delete percent of the synced documents'],
    ['--max-delete <pct>', 'largest share of the synced documents one sync deletes without --force (default 20)'],
    ['-w, --watch', 'keep following the folder: a burst of changes is synced once it settles (0.75 s)'],
    ['-j, --concurrency <n>', 'batch requests in flight, 1 to 16 (default 4); fewer while the server answers 429/503'],
  ],
  examples: ['dossier sync ./handbook -c handbook --dry-run', 'dossier sync ./handbook handbook --delete', 'dossier sync ./notes -c notes --watch --json'],
  async run(ctx) {
    const o = await optionsOf(ctx);
    if (ctx.values.watch) {
      if (o.dryRun) throw usageError('--watch and --dry-run do not go together', 'look at the plan first with --dry-run, then --watch');
      return watchFolder(ctx, o);
    }
    return once(ctx, o);
  },
};
