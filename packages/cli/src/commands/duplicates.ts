import type { DuplicateGroup, DuplicateRun } from '../api-types.ts';
import type { Command, Context } from '../command.ts';
import { CliError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { intFlag } from '../filters.ts';
import { truncate } from '../style.ts';
import { arg, dispatch } from '../subcommand.ts';

const notFound = { notFoundHint: 'check the id; `dossier duplicates list` shows the groups' };
const POLL_MS = 1_000;
const percent = (value: number | null): string => (value === null ? '—' : `${Math.round(value * 100)}%`);

async function detect(ctx: Context) {
  const id = await ctx.collection();
  const api = ctx.api();
  const started = await api.json<{ runId: string; jobsEnqueued: number }>('POST', `/collections/${id}/duplicates/detect`, notFound);
  if (!ctx.values.watch) {
    if (ctx.out.json) return ctx.out.value(started);
    return ctx.out.info(`run ${started.runId} started (${started.jobsEnqueued} jobs); \`dossier duplicates detect --watch\` follows a run`);
  }
  for (;;) {
    const run = await api.json<DuplicateRun>('GET', `/collections/${id}/duplicates/runs/latest`, notFound);
    if (run.status === 'completed' || run.status === 'failed') {
      if (ctx.out.json) ctx.out.value(run);
      if (run.status === 'failed') throw new CliError(`duplicate detection failed: ${run.error}`, EXIT.failure);
      if (!ctx.out.json) ctx.out.info(`done: ${run.duplicatesDetected} near-duplicate(s), ${run.duplicateGroupsCreated} new group(s)`);
      return;
    }
    if (!ctx.out.json) ctx.out.info(`run ${run.id}: ${run.status}, ${run.jobsProcessed ?? 0}/${run.jobsEnqueued ?? 0} jobs`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function list(ctx: Context) {
  const id = await ctx.collection();
  const limit = intFlag(ctx.values, 'limit', 1, 100) ?? 50;
  const offset = intFlag(ctx.values, 'offset', 0, 1_000_000) ?? 0;
  const page = await ctx
    .api()
    .json<{ total: number; items: DuplicateGroup[] }>('GET', `/collections/${id}/duplicates?limit=${limit}&offset=${offset}`, notFound);
  if (ctx.out.json) return ctx.out.value(page);
  if (page.items.length === 0) return ctx.out.info('no duplicate groups; `dossier duplicates detect --watch` looks for some');
  for (const group of page.items) {
    ctx.out.line(`group ${group.id}`);
    ctx.out.table(
      ['DOCUMENT', 'FILENAME', 'ROLE', 'IN CANONICAL', 'OF CANONICAL'],
      group.members.map((member) => [
        member.documentId,
        truncate(member.filename, 40),
        member.relationship,
        percent(member.coverageToCanonical),
        percent(member.coverageFromCanonical),
      ]),
    );
  }
  if (page.total > offset + page.items.length) ctx.out.info(`${page.items.length} of ${page.total} groups shown (--offset, --limit)`);
}

async function resolve(ctx: Context) {
  const groupId = arg(ctx, 1, 'the group id', 'dossier duplicates resolve <group-id> <document-id>');
  const documentId = arg(ctx, 2, 'the document to make canonical', 'dossier duplicates resolve <group-id> <document-id>');
  const result = await ctx.api().json<{ success: boolean; changed: boolean }>('PATCH', `/collections/${await ctx.collection()}/duplicates/${groupId}`, {
    json: { canonicalDocumentId: documentId },
    ...notFound,
  });
  if (ctx.out.json) return ctx.out.value(result);
  ctx.out.info(result.changed ? `${documentId} is now the canonical of group ${groupId}` : `${documentId} already was the canonical`);
}

async function dismiss(ctx: Context) {
  const groupId = arg(ctx, 1, 'the group id', 'dossier duplicates dismiss <group-id>');
  const result = await ctx.api().json<{ members: number }>('DELETE', `/collections/${await ctx.collection()}/duplicates/${groupId}`, notFound);
  if (ctx.out.json) return ctx.out.value(result);
  ctx.out.info(`group ${groupId} disbanded: its ${result.members} documents are all back in search`);
}

export const duplicatesCommand: Command = {
  name: 'duplicates',
  summary: 'Near-duplicate documents: detect, list, choose the canonical, or dismiss a group',
  usage: [
    'duplicates detect [--watch]',
    'duplicates list [--limit n] [--offset n]',
    'duplicates resolve <group-id> <document-id>',
    'duplicates dismiss <group-id>',
  ],
  description:
    'Documents whose text mostly occurs in another (either way: copies, other formats, excerpts) form a group; only\n' +
    'the canonical member is searched. With enableDeduplication each new document is checked as it becomes ready.',
  subcommands: [
    ['detect', 'check every ready document (--watch follows the run)'],
    ['list', 'groups with their members and coverage'],
    ['resolve <group> <doc>', 'make that member the canonical'],
    ['dismiss <group>', 'disband the group: every member searchable again'],
  ],
  options: { watch: { type: 'boolean' }, limit: { type: 'string', short: 'n' }, offset: { type: 'string' } },
  optionHelp: [
    ['--watch', 'detect: follow the run to the end'],
    ['-n, --limit <n>', 'list: groups per page, 1 to 100 (default 50)'],
    ['--offset <n>', 'list: groups to skip'],
  ],
  examples: ['dossier duplicates detect --watch', 'dossier duplicates list', 'dossier duplicates resolve 01a2… 3f9c…'],
  run: (ctx) => dispatch(ctx, 'duplicates', { detect, list, resolve, dismiss }),
};
