/**
 * The Dossier query phase of bench/compare/phase.mjs alone (under tsx, from the sources), on a data directory profile-build.ts kept: every test query once
 * (after one warm-up pass), with the process's CPU time per query beside the wall-clock percentiles, and the nDCG@10.
 * Usage: node --import tsx bench/compare/profile-query.ts <dir> <collection id> [rm3|none] [dataset]
 */
import { resolve } from 'node:path';
import { createDossier } from '@dossier/adapters';
import { DEFAULT_RETRIEVAL, type QueryExpansion } from '@dossier/core';
import { DEFAULT_DATASET } from '../beir/args.ts';
import { readTestQueries } from '../beir/dataset.ts';
import { evaluate, percentile, rankDocuments } from '../beir/metrics.ts';

const [dir, collectionId, expansion = 'rm3', dataset = DEFAULT_DATASET] = process.argv.slice(2);
if (!dir || !collectionId) throw new Error('usage: profile-query.ts <dir> <collection id> [rm3|none] [dataset]');
const set = await readTestQueries(resolve(dataset));
const retrieval = { ...DEFAULT_RETRIEVAL, queryExpansion: expansion as QueryExpansion };
const dossier = await createDossier({ dataDir: dir, embeddingModel: 'none', workers: { concurrency: 0 }, retrieval });
const local = await dossier.local();
const search = async (q: string) =>
  (await local.search.query(collectionId, { q, limit: 10 })).results.map((h) => ({ docId: h.document.filename.replace(/\.md$/, ''), score: h.score }));
for (const q of set.queries) await search(q.text); // warm-up
const rankings = new Map<string, string[]>();
const ms: number[] = [];
const cpu0 = process.cpuUsage();
for (const q of set.queries) {
  const t0 = performance.now();
  const hits = await search(q.text);
  ms.push(performance.now() - t0);
  rankings.set(q.id, rankDocuments(hits, q.id));
}
const cpu = process.cpuUsage(cpu0);
await dossier.close();
const out = {
  expansion,
  ndcg10: +evaluate(rankings, set.qrels).ndcg10.toFixed(4),
  p50: +percentile(ms, 50).toFixed(2),
  p95: +percentile(ms, 95).toFixed(2),
  cpuMsPerQuery: +((cpu.user + cpu.system) / 1000 / set.queries.length).toFixed(2),
};
process.stdout.write(`${JSON.stringify(out)}\n`);
