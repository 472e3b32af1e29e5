import { openAsBlob } from 'node:fs';
import { GOLDEN_MATCHES, PROPOSAL_STATUSES, QUERY_EXPANSIONS } from '@dossier/core/vocabulary';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { components } from '../api.gen.ts';
import type { Command, Context } from '../command.ts';
import { CliError, usageError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { choiceFlag, choiceHelp, intFlag } from '../filters.ts';
import { shortDate } from '../format.ts';
import { truncate } from '../style.ts';
import { arg, dispatch } from '../subcommand.ts';

type Schemas = components['schemas'];
type GoldenSet = Schemas['GoldenSet'];
type EvaluationRun = Schemas['EvaluationRun'];
type EvaluationRunSummary = Schemas['EvaluationRunSummary'];
type EvaluationComparison = Schemas['EvaluationComparison'];
type GoldenProposal = Schemas['GoldenProposal'];
type AcceptedGoldenProposal = Schemas['AcceptedGoldenProposal'];

const notFound = { notFoundHint: 'check the id; `dossier eval sets` and `dossier eval runs` list them' };
const fixed = (n: number, digits = 4): string => n.toFixed(digits);
const signed = (n: number, digits = 4): string => `${n >= 0 ? '+' : ''}${n.toFixed(digits)}`;

/** The figures of a run's row: its metrics once completed, else its status in their place. */
function figures(r: EvaluationRunSummary): string[] {
  const m = r.metrics;
  if (!m) return [r.status, '', '', '', '', '', ''];
  return [String(m.k), fixed(m.ndcg10), fixed(m.recall), fixed(m.mrr), fixed(m.latencyP50Ms, 1), fixed(m.latencyP95Ms, 1), String(m.queries)];
}

/** The metrics table of runs (one row each); a run on a shadow copy shows its chunking or model beside the expansion. */
function metricsTable(ctx: Context, runs: EvaluationRunSummary[]): void {
  ctx.out.table(
    ['RUN', 'SET', 'TRIGGER', 'EXPANSION', 'RERANK', 'K', 'nDCG@10', 'RECALL@K', 'MRR', 'P50 MS', 'P95 MS', 'QUERIES', 'WHEN'],
    runs.map((r) => {
      const shadow = r.settings.shadow ? ` (shadow: chunks ${r.settings.chunkSize}/${r.settings.chunkOverlap}, ${r.settings.embeddingModel})` : '';
      return [
        r.id,
        `${truncate(r.setId, 8)} v${r.setVersion}`,
        r.trigger,
        `${r.settings.queryExpansion}${shadow}`,
        String(r.settings.enableReranking),
        ...figures(r),
        shortDate(r.createdAt),
      ];
    }),
  );
}

/** The metrics, then the queries that missed (an expected target not in the results, or nDCG@10 below 1), worst first. */
function printRun(ctx: Context, run: EvaluationRun, misses: number): void {
  metricsTable(ctx, [run]);
  if (run.status !== 'completed') return;
  const missed = run.perQuery.filter((q) => q.ndcg10 < 1 - 1e-9).sort((a, b) => a.ndcg10 - b.ndcg10);
  if (missed.length === 0) {
    ctx.out.info('every query found what it expected at the top');
    return;
  }
  ctx.out.line();
  ctx.out.line(`${missed.length} of ${run.perQuery.length} queries below nDCG@10 1 (worst ${Math.min(misses, missed.length)} shown, --misses n):`);
  ctx.out.table(
    ['QUERY', 'nDCG@10', 'EXPECTED (RANK)', 'RETURNED (TOP 3)'],
    missed
      .slice(0, misses)
      .map((q) => [
        truncate(`${q.id}: ${q.query}`, 50),
        fixed(q.ndcg10, 3),
        truncate(q.expected.map((e) => `${e.target} (${e.rank ?? '—'})`).join(', '), 40),
        truncate(q.returned.slice(0, 3).join(', '), 40),
      ]),
  );
}

/** The settings patch of `eval run` from its flags. */
function settingsOf(ctx: Context): Record<string, unknown> {
  const expansion = choiceFlag(ctx.values, 'query-expansion', QUERY_EXPANSIONS);
  const rerank = ctx.values.rerank;
  if (rerank !== undefined && rerank !== 'on' && rerank !== 'off') throw usageError(`--rerank must be on or off, not '${String(rerank)}'`);
  const limit = intFlag(ctx.values, 'limit', 1, 100);
  const chunkSize = intFlag(ctx.values, 'chunk-size', 64, 4096);
  const chunkOverlap = intFlag(ctx.values, 'chunk-overlap', 0, 512);
  const model = ctx.values['embedding-model'];
  return {
    ...(expansion ? { queryExpansion: expansion } : {}),
    ...(rerank ? { enableReranking: rerank === 'on' } : {}),
    ...(limit ? { limit } : {}),
    ...(chunkSize !== undefined ? { chunkSize } : {}),
    ...(chunkOverlap !== undefined ? { chunkOverlap } : {}),
    ...(typeof model === 'string' ? { embeddingModel: model } : {}),
  };
}

/** How often `eval run` asks about a queued run (DOSSIER_EVAL_POLL_MS shortens it in tests). */
function pollMs(): number {
  const ms = Number(process.env.DOSSIER_EVAL_POLL_MS);
  return Number.isFinite(ms) && ms >= 10 ? ms : 1000;
}

/** Wait for a queued run (one on a shadow copy): poll it, showing its progress on stderr, until it completed or failed. */
async function awaitRun(ctx: Context, path: string, queued: EvaluationRun): Promise<EvaluationRun> {
  let run = queued;
  let shown = '';
  while (run.status === 'running') {
    const p = run.progress;
    const line = p
      ? `${p.stage === 'indexing' ? 'building the shadow copy' : 'searching'}: ${p.done}/${p.total}${p.stage === 'indexing' ? ' documents' : ' queries'}`
      : 'queued';
    if (!ctx.out.json && line !== shown) ctx.out.info(line);
    shown = line;
    await new Promise((resolve) => setTimeout(resolve, pollMs()));
    if (ctx.signal?.aborted) throw new CliError(`stopped waiting; the run goes on: dossier eval show ${run.id}`, EXIT.interrupted);
    run = await ctx.api().json<EvaluationRun>('GET', `${path}/${run.id}`, { signal: ctx.signal, ...notFound });
  }
  if (run.status === 'failed') throw new CliError(`evaluation run ${run.id} failed: ${run.error ?? 'no reason given'}`, EXIT.failure);
  return run;
}

async function runSet(ctx: Context) {
  const setId = arg(ctx, 1, 'the golden set id', 'dossier eval run <set-id>');
  const version = intFlag(ctx.values, 'version', 1, 1_000_000);
  const settings = settingsOf(ctx);
  const body = { setId, ...(version ? { version } : {}), ...(Object.keys(settings).length ? { settings } : {}) };
  if (!ctx.out.json) ctx.out.info(`running set ${setId}…`);
  const path = `/collections/${await ctx.collection()}/evaluations`;
  const started = await ctx.api().json<EvaluationRun>('POST', path, { json: body, timeoutMs: null, signal: ctx.signal, ...notFound });
  if (started.status === 'running' && !ctx.out.json)
    ctx.out.info(`run ${started.id} queued: chunking or the embedding model is tried on a shadow copy built in the background`);
  const run = await awaitRun(ctx, path, started);
  if (ctx.out.json) return ctx.out.value(run);
  printRun(ctx, run, intFlag(ctx.values, 'misses', 0, 10_000) ?? 10);
}

async function show(ctx: Context) {
  const runId = arg(ctx, 1, 'the run id', 'dossier eval show <run-id>');
  const run = await ctx.api().json<EvaluationRun>('GET', `/collections/${await ctx.collection()}/evaluations/${runId}`, notFound);
  if (ctx.out.json) return ctx.out.value(run);
  printRun(ctx, run, intFlag(ctx.values, 'misses', 0, 10_000) ?? 10);
}

async function runs(ctx: Context) {
  const limit = intFlag(ctx.values, 'limit', 1, 100) ?? 20;
  const list = await ctx.api().json<EvaluationRunSummary[]>('GET', `/collections/${await ctx.collection()}/evaluations?limit=${limit}`, notFound);
  if (ctx.out.json) return ctx.out.value(list);
  if (list.length === 0) return ctx.out.info('no runs yet; `dossier eval run <set-id>` makes one');
  metricsTable(ctx, list);
}

async function compare(ctx: Context) {
  const base = arg(ctx, 1, 'the base run id', 'dossier eval compare <base-run> <candidate-run>');
  const candidate = arg(ctx, 2, 'the candidate run id', 'dossier eval compare <base-run> <candidate-run>');
  const path = `/collections/${await ctx.collection()}/evaluations/compare?base=${encodeURIComponent(base)}&candidate=${encodeURIComponent(candidate)}`;
  const cmp = await ctx.api().json<EvaluationComparison>('GET', path, notFound);
  if (ctx.out.json) return ctx.out.value(cmp);
  metricsTable(ctx, [cmp.base, cmp.candidate]);
  const d = cmp.delta;
  ctx.out.line(
    `delta: nDCG@10 ${signed(d.ndcg10)}, recall ${signed(d.recall)}, MRR ${signed(d.mrr)}, p50 ${signed(d.latencyP50Ms, 1)} ms, p95 ${signed(d.latencyP95Ms, 1)} ms`,
  );
  if (cmp.queries.length === 0) return;
  ctx.out.table(
    ['QUERY', 'BASE', 'CANDIDATE', 'DELTA'],
    cmp.queries.slice(0, 20).map((q) => [truncate(`${q.id}: ${q.query}`, 50), fixed(q.baseNdcg10, 3), fixed(q.candidateNdcg10, 3), signed(q.delta, 3)]),
  );
}

async function sets(ctx: Context) {
  const list = await ctx.api().json<GoldenSet[]>('GET', `/collections/${await ctx.collection()}/golden-sets`, notFound);
  if (ctx.out.json) return ctx.out.value(list);
  if (list.length === 0) return ctx.out.info('no golden sets; `dossier eval import <name> --queries q.jsonl --qrels qrels.tsv` makes one');
  ctx.out.table(
    ['ID', 'NAME', 'VERSION', 'MATCH BY', 'QUERIES', 'CREATED'],
    list.map((s) => [s.id, truncate(s.name, 30), String(s.version), s.matchBy, String(s.queryCount), shortDate(s.createdAt)]),
  );
}

/** `eval import <name>`: BEIR files (--queries, --qrels) or a JSON list of {query, relevant} (--file). */
async function importSet(ctx: Context) {
  const name = arg(ctx, 1, 'a name for the set', 'dossier eval import scifact --queries queries.jsonl --qrels qrels/test.tsv');
  const { queries, qrels, file } = ctx.values;
  const matchBy = typeof ctx.values['match-by'] === 'string' ? { matchBy: ctx.values['match-by'] } : {};
  const path = `/collections/${await ctx.collection()}/golden-sets`;
  let set: GoldenSet;
  if (typeof file === 'string') {
    set = await ctx.api().json<GoldenSet>('POST', path, { json: { name, ...matchBy, queries: JSON.parse(await readFile(file, 'utf8')) }, ...notFound });
  } else if (typeof queries === 'string' && typeof qrels === 'string') {
    // The files go as they are (multipart upload): the server checks their size, encoding and lines.
    const form = new FormData();
    form.append('name', name);
    if (matchBy.matchBy) form.append('matchBy', String(matchBy.matchBy));
    form.append('queries', await openAsBlob(queries), basename(queries));
    form.append('qrels', await openAsBlob(qrels), basename(qrels));
    set = await ctx.api().json<GoldenSet>('POST', `${path}/upload`, { body: form, timeoutMs: null, ...notFound });
  } else throw usageError('give --queries and --qrels (BEIR files), or --file (a JSON list of {query, relevant: [{target, grade}]})');
  if (ctx.out.json) return ctx.out.value(set);
  ctx.out.info(`golden set ${set.id} (v${set.version}): ${set.queryCount} queries, matched by ${set.matchBy}`);
}

function proposalTable(ctx: Context, list: GoldenProposal[]): void {
  ctx.out.table(
    ['ID', 'STATUS', 'QUESTION', 'FROM SECTION', 'SET'],
    list.map((p) => [p.id, p.status, truncate(p.question, 60), truncate(p.sectionTitle, 30), p.setId ? `${truncate(p.setId, 8)} v${p.setVersion}` : '']),
  );
}

/** `eval propose`: the fast model drafts questions from sampled sections, for a person to accept or reject. */
async function propose(ctx: Context) {
  const count = intFlag(ctx.values, 'count', 1, 20);
  if (!ctx.out.json) ctx.out.info('asking the fast model for questions…');
  const list = await ctx
    .api()
    .json<GoldenProposal[]>('POST', `/collections/${await ctx.collection()}/golden-proposals`, { json: count ? { count } : {}, timeoutMs: null, ...notFound });
  if (ctx.out.json) return ctx.out.value(list);
  proposalTable(ctx, list);
  ctx.out.info('nothing is scored yet: `dossier eval accept <id> --set <set-id>` (or --name) or `dossier eval reject <id>`');
}

async function proposals(ctx: Context) {
  const status = choiceFlag(ctx.values, 'status', PROPOSAL_STATUSES);
  const query = status ? `?status=${status}` : '';
  const list = await ctx.api().json<GoldenProposal[]>('GET', `/collections/${await ctx.collection()}/golden-proposals${query}`, notFound);
  if (ctx.out.json) return ctx.out.value(list);
  if (list.length === 0) return ctx.out.info('no proposals; `dossier eval propose` drafts some');
  proposalTable(ctx, list);
}

async function accept(ctx: Context) {
  const id = arg(ctx, 1, 'the proposal id', 'dossier eval accept <proposal-id> (--set <set-id> | --name <new set>) [--question "…"]');
  const { set, name, question } = ctx.values;
  if ((typeof set === 'string') === (typeof name === 'string')) throw usageError('give --set <set-id> (add to that set) or --name <name> (start a new set)');
  const body = { ...(typeof set === 'string' ? { setId: set } : { name }), ...(typeof question === 'string' ? { question } : {}) };
  const done = await ctx
    .api()
    .json<AcceptedGoldenProposal>('POST', `/collections/${await ctx.collection()}/golden-proposals/${encodeURIComponent(id)}/accept`, {
      json: body,
      ...notFound,
    });
  if (ctx.out.json) return ctx.out.value(done);
  ctx.out.info(`accepted into set ${done.set.id} v${done.set.version} (${done.set.queryCount} queries): ${done.proposal.question}`);
}

async function reject(ctx: Context) {
  const id = arg(ctx, 1, 'the proposal id', 'dossier eval reject <proposal-id>');
  const done = await ctx
    .api()
    .json<GoldenProposal>('POST', `/collections/${await ctx.collection()}/golden-proposals/${encodeURIComponent(id)}/reject`, notFound);
  if (ctx.out.json) return ctx.out.value(done);
  ctx.out.info(`rejected: ${done.question}`);
}

export const evalCommand: Command = {
  name: 'eval',
  summary: 'Evaluate retrieval on golden sets: import a set, run it, compare runs',
  usage: [
    `eval import <name> (--queries q.jsonl --qrels qrels.tsv | --file set.json) [--match-by ${choiceHelp(GOLDEN_MATCHES)}]`,
    'eval sets',
    `eval run <set-id> [--version n] [--query-expansion ${choiceHelp(QUERY_EXPANSIONS)}] [--rerank on|off] [--limit k] [--chunk-size n] [--chunk-overlap n] [--embedding-model m] [--misses n]`,
    'eval runs [--limit n]',
    'eval show <run-id> [--misses n]',
    'eval compare <base-run> <candidate-run>',
    'eval propose [--count n]',
    `eval proposals [--status ${choiceHelp(PROPOSAL_STATUSES)}]`,
    'eval accept <proposal-id> (--set <set-id> | --name <name>) [--question "…"]',
    'eval reject <proposal-id>',
  ],
  description:
    'A golden set lists queries with the documents (or sections) that answer them. A run sends every query through the\n' +
    "collection's query path and reports nDCG@10, recall@k, MRR and latency, with the queries that missed. Settings\n" +
    'given to `eval run` are tried without changing the collection; chunking or an embedding model are tried on a shadow\n' +
    'copy built in the background, and `eval run` waits for it, showing its progress.',
  subcommands: [
    ['import <name>', 'create a golden set from BEIR files or a JSON list'],
    ['sets', 'the golden sets of the collection'],
    ['run <set-id>', 'run a set (optionally with other settings) and show its metrics and misses'],
    ['runs', 'earlier runs, newest first'],
    ['show <run-id>', 'a run with its misses'],
    ['compare <a> <b>', 'metric deltas and the queries that changed'],
    ['propose', 'let the fast model draft questions from sampled sections (unconfirmed)'],
    ['proposals', 'drafted questions and their status'],
    ['accept <id>', 'accept a drafted question (optionally edited) into a set'],
    ['reject <id>', 'reject a drafted question'],
  ],
  options: {
    queries: { type: 'string' },
    qrels: { type: 'string' },
    file: { type: 'string' },
    'match-by': { type: 'string' },
    version: { type: 'string' },
    'query-expansion': { type: 'string' },
    rerank: { type: 'string' },
    limit: { type: 'string', short: 'n' },
    misses: { type: 'string' },
    'chunk-size': { type: 'string' },
    'chunk-overlap': { type: 'string' },
    'embedding-model': { type: 'string' },
    count: { type: 'string' },
    status: { type: 'string' },
    set: { type: 'string' },
    name: { type: 'string' },
    question: { type: 'string' },
  },
  optionHelp: [
    ['--queries <file> --qrels <file>', 'import: BEIR queries.jsonl and qrels tsv (corpus ids matched by file name)'],
    ['--file <file>', 'import: a JSON list of {id?, query, relevant: [{target, grade?}]}'],
    ['--query-expansion, --rerank, --limit', "run: settings to try instead of the collection's (limit = k of recall@k)"],
    ['--chunk-size, --chunk-overlap, --embedding-model', 'run: re-indexing settings, tried on a shadow copy (the run waits for it)'],
    ['--misses <n>', 'run, show: how many missed queries to list (default 10)'],
    ['--count <n>', 'propose: sections to sample, one question each (1 to 20, default 5)'],
    ['--set <id> | --name <name>, --question <text>', 'accept: the set to add to (or a new one), and the question as edited'],
  ],
  examples: [
    'dossier eval import scifact --queries queries.jsonl --qrels qrels/test.tsv',
    'dossier eval run 4b1e… --query-expansion none',
    'dossier eval compare 9a… 7c…',
  ],
  run: (ctx) => dispatch(ctx, 'eval', { import: importSet, sets, run: runSet, runs, show, compare, propose, proposals, accept, reject }),
};
