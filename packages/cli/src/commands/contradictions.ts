import { CONTRADICTION_SEVERITIES, CONTRADICTION_STATUSES } from '@dossier/core/vocabulary';
import type { Contradiction, ContradictionRun } from '../api-types.ts';
import type { Command, Context } from '../command.ts';
import { CliError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { choiceFlag, intFlag } from '../filters.ts';
import { oneLine, truncate } from '../style.ts';
import { arg, dispatch } from '../subcommand.ts';

const notFound = { notFoundHint: 'check the id; `dossier contradictions list` shows them' };
const POLL_MS = 1_000;

async function detect(ctx: Context) {
  const id = await ctx.collection();
  const api = ctx.api();
  const started = await api.json<{ runId: string; status: string }>('POST', `/collections/${id}/contradictions/detect`, notFound);
  if (!ctx.values.watch) {
    if (ctx.out.json) return ctx.out.value(started);
    return ctx.out.info(`run ${started.runId} ${started.status}; \`dossier contradictions detect --watch\` follows it`);
  }
  for (;;) {
    const run = await api.json<ContradictionRun>('GET', `/collections/${id}/contradictions/runs/latest`, notFound);
    if (run.status === 'completed' || run.status === 'failed') return report(ctx, run);
    if (!ctx.out.json) ctx.out.info(`run ${run.id}: ${run.status}…`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function report(ctx: Context, run: ContradictionRun): number | undefined {
  if (ctx.out.json) ctx.out.value(run);
  else if (run.status === 'completed') {
    ctx.out.info(`done: ${run.claimsProcessed} claims in ${run.clustersAnalyzed} groups, ${run.contradictionsFound} new contradiction(s)`);
  }
  if (run.status === 'failed') throw new CliError(`the contradiction run failed: ${run.error}`, EXIT.failure);
  return undefined;
}

async function list(ctx: Context) {
  const id = await ctx.collection();
  const params = new URLSearchParams();
  for (const [name, value] of [
    ['status', choiceFlag(ctx.values, 'status', CONTRADICTION_STATUSES)],
    ['severity', choiceFlag(ctx.values, 'severity', CONTRADICTION_SEVERITIES)],
    ['documentId', ctx.values.document],
    ['limit', intFlag(ctx.values, 'limit', 1, 100)],
  ] as const) {
    if (value !== undefined) params.set(name, String(value));
  }
  const page = await ctx.api().json<{ total: number; items: Contradiction[] }>('GET', `/collections/${id}/contradictions?${params}`, notFound);
  if (ctx.out.json) return ctx.out.value(page);
  if (page.items.length === 0) return ctx.out.info('no contradictions; run `dossier contradictions detect --watch` to look for some');
  for (const item of page.items) {
    ctx.out.line(`${item.id}  ${item.severity.toUpperCase()}  ${item.clusterTopicSummary ?? ''}`);
    ctx.out.line(`  ${oneLine(item.explanation)}`);
    for (const claim of item.claims) ctx.out.line(`  - ${truncate(claim.documentName, 30)}: ${truncate(oneLine(claim.text), 90)}`);
    if (item.suggestedInstruction) ctx.out.line(`  suggested instruction: ${oneLine(item.suggestedInstruction)}`);
  }
  if (page.total > page.items.length) ctx.out.info(`${page.items.length} of ${page.total} shown (--limit up to 100)`);
}

async function apply(ctx: Context) {
  const contradictionId = arg(ctx, 1, 'the contradiction id', 'dossier contradictions apply <id>');
  const instruction = typeof ctx.values.instruction === 'string' ? ctx.values.instruction : undefined;
  await ctx.api().json('POST', `/collections/${await ctx.collection()}/contradictions/${contradictionId}/apply-instruction`, {
    json: instruction ? { instruction } : {},
    ...notFound,
  });
  if (ctx.out.json) return ctx.out.value({ id: contradictionId, status: 'applied' });
  ctx.out.info('applied: the instruction was appended to the collection instructions');
}

async function dismiss(ctx: Context) {
  const contradictionId = arg(ctx, 1, 'the contradiction id', 'dossier contradictions dismiss <id>');
  const updated = await ctx
    .api()
    .json<Contradiction>('PATCH', `/collections/${await ctx.collection()}/contradictions/${contradictionId}`, { json: { status: 'dismissed' }, ...notFound });
  if (ctx.out.json) return ctx.out.value(updated);
  ctx.out.info(`dismissed ${updated.id}; later runs will not raise it again`);
}

export const contradictionsCommand: Command = {
  name: 'contradictions',
  summary: 'Find where the documents of a collection disagree, and resolve it',
  usage: [
    'contradictions detect [--watch]',
    'contradictions list [--status active|dismissed|applied] [--severity low|medium|high] [--document <id>] [--limit n]',
    'contradictions apply <id> [--instruction text]',
    'contradictions dismiss <id>',
  ],
  description:
    'A run groups similar claims and asks the model which of them conflict. Applying a contradiction appends its\n' +
    'suggested instruction (or --instruction) to the collection instructions that research follows.',
  subcommands: [
    ['detect', 'start a run (--watch follows it to the end)'],
    ['list', 'contradictions, newest first'],
    ['apply <id>', 'append the instruction to the collection instructions'],
    ['dismiss <id>', 'dismiss a contradiction'],
  ],
  options: {
    watch: { type: 'boolean' },
    status: { type: 'string' },
    severity: { type: 'string' },
    document: { type: 'string' },
    limit: { type: 'string', short: 'n' },
    instruction: { type: 'string' },
  },
  optionHelp: [
    ['--watch', 'detect: follow the run until it completes'],
    ['--status <s>', 'list: active (default), dismissed or applied'],
    ['--severity <s>', 'list: low, medium or high'],
    ['--document <id>', 'list: only contradictions touching this document'],
    ['-n, --limit <n>', 'list: 1 to 100 (default 20)'],
    ['--instruction <text>', 'apply: use this instead of the suggested instruction'],
  ],
  examples: ['dossier contradictions detect --watch', 'dossier contradictions list --severity high', 'dossier contradictions apply 01a2…'],
  run: (ctx) => dispatch(ctx, 'contradictions', { detect, list, apply, dismiss }),
};
