/**
 * Dossier's library beside MiniSearch and Orama on a BEIR dataset (issue 41): quality, ingest rate, peak RSS, query
 * latency (as the README pattern leaves the index, and after an explicit optimize) and a cold process, each engine
 * in its own processes, rounds interleaved, medians reported with Dossier's ratio to each in-memory engine. Every
 * phase runs as a user's application does: plain node (no TypeScript loader), Dossier from an installed copy of the
 * built packages (phase.mjs, cold.mjs); this process only prepares the inputs and scores the hits.
 * Usage: node --import tsx bench/compare/run.ts [beir-folder] [--rounds N] [--out FILE]
 * (`npx tsc -b packages/adapters/tsconfig.build.json` first: the phases run the built packages.)
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { DEFAULT_DATASET, REPO_ROOT } from '../beir/args.ts';
import { readCorpus, readTestQueries, toMarkdown } from '../beir/dataset.ts';
import { evaluate, percentile, rankDocuments } from '../beir/metrics.ts';
import { commandLine, section, upsertSection } from '../beir/report.ts';

const run = promisify(execFile);
const here = import.meta.dirname;
const log = (msg: string) => process.stderr.write(`${msg}\n`);

/** Runs one phase in a new process (with `env` added to this one's) and returns the JSON line it prints. */
async function phase(args: string[], nodeArgs: string[] = [], env: Record<string, string> = {}): Promise<Record<string, number | string>> {
  const { stdout } = await run(process.execPath, [...nodeArgs, ...args], {
    cwd: REPO_ROOT,
    maxBuffer: 1 << 26,
    env: { ...process.env, NODE_OPTIONS: '', ...env },
  });
  const line = stdout.trim().split('\n').at(-1) ?? '{}';
  return JSON.parse(line);
}

/**
 * A cold process as an application that turns on Node's module compile cache (NODE_COMPILE_CACHE, or
 * module.enableCompileCache() first thing; Node 22.1 and later) starts it the second time: one run fills the cache,
 * the next is timed. On an older Node the variable does nothing and this is the plain cold start again.
 */
async function coldWithCompileCache(args: string[], cacheDir: string): Promise<unknown> {
  await phase(args, [], { NODE_COMPILE_CACHE: cacheDir });
  return (await phase(args, [], { NODE_COMPILE_CACHE: cacheDir })).coldMs;
}

type Figures = Record<string, number[]>;
type Queries = Awaited<ReturnType<typeof readTestQueries>>;
const push = (figures: Figures, key: string, value: unknown) => {
  if (typeof value !== 'number') return;
  figures[key] = [...(figures[key] ?? []), value];
};

/** The hits a phase printed, scored: nDCG@10 of the test queries, latency percentiles. */
type Run = { hits: Record<string, { docId: string; score: number }[]>; ms: number[] };
function score(run: Run, set: Queries): { ndcg10: number; p50: number; p95: number } {
  const rankings = new Map(Object.entries(run.hits).map(([id, hits]) => [id, rankDocuments(hits, id)]));
  return { ndcg10: evaluate(rankings, set.qrels).ndcg10, p50: percentile(run.ms, 50), p95: percentile(run.ms, 95) };
}

/** The corpus as the phases read it (one {id, title, text, markdown} a line) and the test queries. */
async function inputs(dataset: string, work: string): Promise<{ corpus: string; queries: string }> {
  const corpus = join(work, 'corpus.jsonl');
  const lines: string[] = [];
  for await (const d of readCorpus(dataset)) lines.push(JSON.stringify({ ...d, markdown: toMarkdown(d) }));
  await writeFile(corpus, `${lines.join('\n')}\n`);
  const queries = join(work, 'queries.json');
  const { queries: list } = await readTestQueries(dataset);
  await writeFile(queries, JSON.stringify(list.map((q) => ({ id: q.id, text: q.text }))));
  return { corpus, queries };
}

/** One round: every engine built, queried and started cold, in turn, each phase as plain node. */
async function round(files: { corpus: string; queries: string }, set: Queries, work: string, modules: string, figures: Figures): Promise<void> {
  const phaseFile = join(here, 'phase.mjs');
  const dir = await mkdtemp(join(work, 'dossier-'));
  log('dossier: build');
  const built = await phase([phaseFile, 'dossier', 'build', files.corpus, dir, modules], []);
  for (const key of ['docsPerSecond', 'cpuMsPerDoc', 'peakRssMiB']) push(figures, `dossier.${key}`, built[key]);
  for (const expansion of ['rm3', 'none']) {
    log(`dossier: queries (${expansion})`);
    const out = (await phase([phaseFile, 'dossier', 'query', files.queries, dir, modules, String(built.collectionId), expansion], [])) as unknown as {
      asLeft: Run;
      optimized: Run;
    };
    const asLeft = score(out.asLeft, set);
    const optimized = score(out.optimized, set);
    for (const [key, value] of Object.entries({ ...asLeft, optimizedP50: optimized.p50, optimizedP95: optimized.p95 }))
      push(figures, `dossier-${expansion}.${key}`, value);
  }
  log('dossier: cold start');
  const entry = join(modules, '@dossier/adapters/dist/index.js');
  const query = set.queries[0]!.text;
  const dossierCold = [join(here, 'cold.mjs'), 'dossier', dir, query, String(built.collectionId), entry];
  push(figures, 'dossier.coldMs', (await phase(dossierCold)).coldMs);
  push(figures, 'dossier.coldCachedMs', await coldWithCompileCache(dossierCold, await mkdtemp(join(work, 'compile-cache-'))));
  for (const engine of ['minisearch', 'orama']) {
    log(`${engine}: build and queries`);
    const out = await phase([phaseFile, engine, 'build', files.corpus, work, files.queries], []);
    for (const key of ['docsPerSecond', 'cpuMsPerDoc', 'peakRssMiB']) push(figures, `${engine}.${key}`, out[key]);
    for (const [key, value] of Object.entries(score(out.run as unknown as Run, set))) push(figures, `${engine}.${key}`, value);
    log(`${engine}: cold start`);
    const cold = [join(here, 'cold.mjs'), engine, work, query];
    push(figures, `${engine}.coldMs`, (await phase(cold)).coldMs);
    push(figures, `${engine}.coldCachedMs`, await coldWithCompileCache(cold, await mkdtemp(join(work, 'compile-cache-'))));
  }
  await rm(dir, { recursive: true, force: true });
}

/**
 * The built packages laid out as npm installs them (dist/ copied, the published exports, each dependency linked), so
 * the cold start runs plain node with no loader (a loader hook costs about 2 ms a module: 1.3 s over Dossier's
 * 630). Returns the node_modules folder holding them.
 */
async function installedCopy(work: string): Promise<string> {
  if (!existsSync(join(REPO_ROOT, 'packages/adapters/dist/index.js'))) throw new Error('build first: npx tsc -b packages/adapters/tsconfig.build.json');
  for (const name of ['core', 'adapters']) {
    const source = join(REPO_ROOT, 'packages', name);
    const target = join(work, 'node_modules', '@dossier', name);
    await rm(target, { recursive: true, force: true });
    await mkdir(join(target, 'node_modules'), { recursive: true });
    await cp(join(source, 'dist'), join(target, 'dist'), { recursive: true });
    const pkg = JSON.parse(await readFile(join(source, 'package.json'), 'utf8'));
    await writeFile(join(target, 'package.json'), JSON.stringify({ ...pkg, exports: pkg.publishConfig.exports }));
    for (const dep of await readdir(join(source, 'node_modules'))) {
      if (dep !== '@dossier' && dep !== '.bin') await symlink(join(source, 'node_modules', dep), join(target, 'node_modules', dep));
    }
  }
  return join(work, 'node_modules');
}

const median = (values: number[] | undefined): number => {
  if (!values?.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** The issue's table: one row per figure, Dossier's columns, the in-memory engines', and Dossier's ratios to them. */
function table(figures: Figures): string {
  const m = (key: string) => median(figures[key]);
  const fmt = (n: number, digits: number) =>
    Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '';
  const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}×` : '');
  const rows: [string, number, number, number, number, number][] = [
    ['nDCG@10', m('dossier-rm3.ndcg10'), m('dossier-none.ndcg10'), m('minisearch.ndcg10'), m('orama.ndcg10'), 3],
    ['ingest, docs/s', m('dossier.docsPerSecond'), Number.NaN, m('minisearch.docsPerSecond'), m('orama.docsPerSecond'), 0],
    ['ingest, CPU ms per document (all threads)', m('dossier.cpuMsPerDoc'), Number.NaN, m('minisearch.cpuMsPerDoc'), m('orama.cpuMsPerDoc'), 2],
    ['peak RSS, MiB', m('dossier.peakRssMiB'), Number.NaN, m('minisearch.peakRssMiB'), m('orama.peakRssMiB'), 0],
    ['query p50, ms, as add → idle → close leaves the index', m('dossier-rm3.p50'), m('dossier-none.p50'), m('minisearch.p50'), m('orama.p50'), 1],
    ['query p95, ms, same', m('dossier-rm3.p95'), m('dossier-none.p95'), m('minisearch.p95'), m('orama.p95'), 1],
    ['query p50, ms, after an explicit optimize', m('dossier-rm3.optimizedP50'), m('dossier-none.optimizedP50'), Number.NaN, Number.NaN, 1],
    ['whole process: start, open, first query, ms', m('dossier.coldMs'), Number.NaN, m('minisearch.coldMs'), m('orama.coldMs'), 0],
    ["same, with Node's module compile cache (22.1+), ms", m('dossier.coldCachedMs'), Number.NaN, m('minisearch.coldCachedMs'), m('orama.coldCachedMs'), 0],
  ];
  const head =
    '| | Dossier (RM3 default) | Dossier (no expansion) | MiniSearch + Porter | Orama + stop words | Dossier ÷ MiniSearch | Dossier ÷ Orama |\n|---|---:|---:|---:|---:|---:|---:|';
  const body = rows.map(([label, rm3, none, mini, orama, digits]) => {
    const dossier = Number.isFinite(rm3) ? rm3 : none;
    return `| ${label} | ${fmt(rm3, digits)} | ${fmt(none, digits)} | ${fmt(mini, digits)} | ${fmt(orama, digits)} | ${ratio(dossier, mini)} | ${ratio(dossier, orama)} |`;
  });
  return [head, ...body].join('\n');
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { rounds: { type: 'string' }, out: { type: 'string' } } });
const dataset = resolve(positionals[0] ?? DEFAULT_DATASET);
const rounds = Number(values.rounds ?? 1);
const work = await mkdtemp(join(tmpdir(), 'dossier-compare-'));
const figures: Figures = {};
try {
  const set = await readTestQueries(dataset);
  const files = await inputs(dataset, work);
  const modules = await installedCopy(work);
  for (let i = 1; i <= rounds; i++) {
    log(`round ${i} of ${rounds}`);
    await round(files, set, work, modules, figures);
  }
} finally {
  await rm(work, { recursive: true, force: true });
}
const body = table(figures);
process.stdout.write(`${body}\n`);
if (values.out) {
  const heading = 'Issue 41 — the library beside MiniSearch and Orama';
  const notes = [
    `${rounds} round(s), interleaved, medians; every phase in its own process, as plain node running the built packages (no TypeScript loader). Dossier: embedding model none, defaults otherwise; documents added 100 at a time, then idle(); queries with limit 10 after reopening the data directory.`,
    'Cold start: Dossier from the same installed copy of the built packages (dist/); MiniSearch and Orama load the JSON index their build phase saved. With the compile cache: NODE_COMPILE_CACHE set to a new folder, one run to fill it, the next timed.',
  ];
  await upsertSection(resolve(values.out), heading, section(heading, commandLine('bench/compare/run.ts', process.argv.slice(2)), notes, body));
}
