/**
 * Issue 38 bench: SciFact imported as a golden set (BEIR files through the evaluation service, the one behind
 * POST …/golden-sets), run through POST …/evaluations' code path, against bench/beir's own scoring of the same
 * queries on the same collection and settings. Also times the run against issuing the same queries, and checks that
 * a what-if run (queryExpansion none) equals a run after the real settings change.
 * Usage: node --import tsx bench/evaluation/run.ts [../shared/eval/beir/scifact] [--limit-docs N] [--limit-queries N] [--hits 100]
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { QueryHit } from '@dossier/core';
import { parseBenchArgs } from '../beir/args.ts';
import { readTestQueries } from '../beir/dataset.ts';
import { evaluate, rankDocuments } from '../beir/metrics.ts';
import { type BenchDossier, ingestCorpus, ingestOutcome, openBenchDossier } from '../beir/pipeline.ts';
import { fixed, markdownTable, type Row } from '../beir/report.ts';

const log = (msg: string) => process.stderr.write(`${msg}\n`);

/** bench/beir's scoring: each query issued through search.query, documents ranked by their best chunk. */
async function issueQueries(b: BenchDossier, queries: { id: string; text: string }[]) {
  const rankings = new Map<string, string[]>();
  const t0 = performance.now();
  for (const q of queries) {
    const { results } = await b.scoped.search.query(b.collectionId, { q: q.text, limit: 50 });
    rankings.set(
      q.id,
      rankDocuments(
        results.map((h: QueryHit) => ({ docId: h.document.filename.replace(/\.md$/, ''), score: h.score })),
        q.id,
      ),
    );
  }
  return { rankings, seconds: (performance.now() - t0) / 1000 };
}

/** The golden set from the dataset's files: queries.jsonl and the test qrels, limited like the bench's queries. */
async function importSet(b: BenchDossier, dataset: string, keep: ReadonlySet<string>) {
  const queries = await readFile(join(dataset, 'queries.jsonl'), 'utf8');
  const qrelLines = (await readFile(join(dataset, 'qrels', 'test.tsv'), 'utf8')).split(/\r?\n/);
  const qrels = [qrelLines[0], ...qrelLines.slice(1).filter((l) => keep.has(l.split('\t')[0] ?? ''))].join('\n');
  return b.scoped.evaluations.createSet(b.collectionId, { name: 'scifact test', beir: { queries, qrels } });
}

/** A query-time run comes back completed, with its metrics (only chunking or model changes are queued). */
function completed<R extends { status: string; metrics: unknown }>(run: R): R & { metrics: NonNullable<R['metrics']> } {
  if (run.status !== 'completed' || run.metrics === null) throw new Error(`the evaluation run is ${run.status}`);
  return run as R & { metrics: NonNullable<R['metrics']> };
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2));
  const limit = Math.min(args.hits, 100);
  const b = await openBenchDossier({ ...args, hits: limit });
  try {
    const { queries, qrels } = await readTestQueries(args.dataset, args.limitQueries);
    const { seconds: ingestSeconds } = await ingestCorpus(b, args, (n, s) => log(`  ${s.toFixed(0)} s: ${n} documents`));
    log(`ingested in ${ingestSeconds.toFixed(1)} s: ${JSON.stringify((await ingestOutcome(b)).statusCounts)}`);
    await issueQueries(b, queries.slice(0, 20)); // warm caches, so neither timing below pays for the first queries
    const direct = await issueQueries(b, queries);
    const reference = evaluate(direct.rankings, qrels);
    const set = await importSet(b, args.dataset, new Set(queries.map((q) => q.id)));
    const t0 = performance.now();
    const run = completed(await b.scoped.evaluations.run(b.collectionId, { setId: set.id, settings: { limit } }));
    const runSeconds = (performance.now() - t0) / 1000;
    const whatIf = completed(await b.scoped.evaluations.run(b.collectionId, { setId: set.id, settings: { limit, queryExpansion: 'none' } }));
    await b.scoped.collections.update(b.collectionId, { queryExpansion: 'none' });
    const changed = completed(await b.scoped.evaluations.run(b.collectionId, { setId: set.id, settings: { limit } }));
    const rows: Row[] = [
      ['queries (golden set)', String(set.queryCount)],
      ['nDCG@10 — bench/beir scoring of the issued queries', fixed(reference.ndcg10, 4)],
      [`nDCG@10 — evaluation run (limit ${limit}, ${run.settings.queryExpansion})`, fixed(run.metrics.ndcg10, 4)],
      ['|difference|', fixed(Math.abs(run.metrics.ndcg10 - reference.ndcg10), 6)],
      [`recall@${limit} — evaluation run`, fixed(run.metrics.recall, 4)],
      [`MRR@${limit} — evaluation run`, fixed(run.metrics.mrr, 4)],
      ['issuing the queries (s)', fixed(direct.seconds, 2)],
      ['evaluation run, stored (s)', fixed(runSeconds, 2)],
      ['ratio run / issuing', fixed(runSeconds / direct.seconds, 2)],
      ['run latency p50 / p95 (ms)', `${fixed(run.metrics.latencyP50Ms, 1)} / ${fixed(run.metrics.latencyP95Ms, 1)}`],
      ['nDCG@10 — what-if queryExpansion none', fixed(whatIf.metrics.ndcg10, 4)],
      ['nDCG@10 — after PATCH queryExpansion none', fixed(changed.metrics.ndcg10, 4)],
    ];
    process.stdout.write(`\n${markdownTable(rows)}\n`);
  } finally {
    await b.dispose();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
