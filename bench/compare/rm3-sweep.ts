/**
 * RM3 parameters against quality and cost, on a data directory profile-build.ts kept. For each variant (a JSON object
 * of Rm3Options fields over DEFAULT_RM3; `none` for no expansion): nDCG@10 and recall@100 over a qrels split (the 300
 * test queries, or the 809 train queries as a held-out check of a choice made on test). With --speed, every variant
 * opens its own Dossier in this process and the queries run interleaved (query 1 on every variant, then query 2...),
 * so that a shared machine's load weighs on all variants alike: CPU time per query at limit 10 (after a warm-up
 * pass over the same queries, or those of --warm-split, or none with --cold), wall p50/p95, LanceDB searches per
 * query, tokens per searched text and the CPU time inside the index's searches. `{"plainFeedback":true}` reads the
 * feedback passages through searchText, as before searchPassageTexts. --shallow: quality at limit 10 (the headline).
 * Usage: node --import tsx bench/compare/rm3-sweep.ts <dir> <collection id> [--split test|train] [--speed] [--rounds N]
 *   [--cold | --warm-split train] [--shallow] [none | variant JSON ...]
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createDossier } from '@dossier/adapters';
import { DEFAULT_RETRIEVAL, type RetrievalSettings } from '@dossier/core';
import { dossierContext } from '@dossier/core/testing';
import { DEFAULT_DATASET } from '../beir/args.ts';
import { readQrels, readQueries } from '../beir/dataset.ts';
import { evaluate, percentile, rankDocuments } from '../beir/metrics.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    split: { type: 'string', default: 'test' },
    speed: { type: 'boolean' },
    rounds: { type: 'string', default: '1' },
    cold: { type: 'boolean' },
    'warm-split': { type: 'string' },
    shallow: { type: 'boolean' },
    dataset: { type: 'string' },
  },
});
const [dir, collectionId, ...variants] = positionals;
if (!dir || !collectionId) throw new Error('usage: rm3-sweep.ts <dir> <collection id> [--split test|train] [--speed] [none|variant JSON...]');
const dataset = resolve(values.dataset ?? DEFAULT_DATASET);
const [texts, qrels] = await Promise.all([readQueries(dataset), readQrels(dataset, values.split)]);
const queriesOf = async (split: string) => [...(await readQrels(dataset, split)).keys()].flatMap((id) => (texts.has(id) ? [{ id, text: texts.get(id)! }] : []));
const queries = await queriesOf(values.split!);
type Query = (typeof queries)[number];

const settingsOf = (v: string): RetrievalSettings =>
  v === 'none' ? { ...DEFAULT_RETRIEVAL, queryExpansion: 'none' } : { ...DEFAULT_RETRIEVAL, queryExpansion: 'rm3', rm3: JSON.parse(v) };
const open = (retrieval: RetrievalSettings) => createDossier({ dataDir: dir!, embeddingModel: 'none', workers: { concurrency: 0 }, retrieval });

/** A Dossier whose searchText calls are counted: calls, tokens of the searched text, CPU time inside. */
async function counted(retrieval: RetrievalSettings) {
  const dossier = await open(retrieval);
  const index = dossierContext(dossier).index;
  // A variant with "plainFeedback": true reads its feedback passages through searchText, as an index without searchPassageTexts.
  if ((retrieval.rm3 as { plainFeedback?: boolean } | undefined)?.plainFeedback) delete index.searchPassageTexts;
  const searchText = index.searchText.bind(index);
  const counts = { searches: 0, tokens: 0, searchCpuMs: 0, cpuMs: 0, ms: [] as number[] };
  index.searchText = async (id, q, o) => {
    counts.searches++;
    counts.tokens += q.split(/\s+/).length;
    const c0 = process.cpuUsage();
    try {
      return await searchText(id, q, o);
    } finally {
      const c = process.cpuUsage(c0);
      counts.searchCpuMs += (c.user + c.system) / 1000;
    }
  };
  const passages = index.searchPassageTexts?.bind(index);
  if (passages) {
    index.searchPassageTexts = async (id, q, o) => {
      counts.searches++;
      counts.tokens += q.split(/\s+/).length;
      const c0 = process.cpuUsage();
      try {
        return await passages(id, q, o);
      } finally {
        const c = process.cpuUsage(c0);
        counts.searchCpuMs += (c.user + c.system) / 1000;
      }
    };
  }
  const local = await dossier.local();
  const run = async (q: Query) => rankDocuments((await local.search.query(collectionId!, { q: q.text, limit: 10 })).results.map(toHit), q.id);
  return { dossier, counts, run };
}

const toHit = (h: { document: { filename: string }; score: number }) => ({ docId: h.document.filename.replace(/\.md$/, ''), score: h.score });

/** nDCG@10 and recall@100 (100 results per query; with --shallow the 10 a user asks for), and the tokens per searched text. */
async function quality(retrieval: RetrievalSettings) {
  const { dossier, counts, run } = await counted(values.shallow ? retrieval : { ...retrieval, resultLimit: 100 });
  const rankings = new Map<string, string[]>();
  for (const q of queries) rankings.set(q.id, await run(q));
  await dossier.close();
  const m = evaluate(rankings, qrels);
  return { ndcg10: +m.ndcg10.toFixed(4), recall100: +m.recall100.toFixed(4), tokensPerSearch: +(counts.tokens / counts.searches).toFixed(1) };
}

const names = variants.length ? variants : ['{}'];
if (!values.speed) {
  for (const v of names) process.stdout.write(`${values.split} ${v} ${JSON.stringify(await quality(settingsOf(v)))}\n`);
} else {
  const runners = await Promise.all(names.map((v) => counted(settingsOf(v))));
  const warmQueries = values['warm-split'] ? await queriesOf(values['warm-split']) : queries;
  if (!values.cold) for (const q of warmQueries) for (const r of runners) await r.run(q); // warm-up
  for (const r of runners) Object.assign(r.counts, { searches: 0, tokens: 0, searchCpuMs: 0 });
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const q of queries) {
      for (const r of runners) {
        const [c0, t0] = [process.cpuUsage(), performance.now()];
        await r.run(q);
        const c = process.cpuUsage(c0);
        r.counts.ms.push(performance.now() - t0);
        r.counts.cpuMs += (c.user + c.system) / 1000;
      }
    }
  }
  for (const [i, r] of runners.entries()) {
    const n = r.counts.ms.length;
    const figures = {
      cpuMsPerQuery: +(r.counts.cpuMs / n).toFixed(2),
      searchCpuMsPerQuery: +(r.counts.searchCpuMs / n).toFixed(2),
      p50: +percentile(r.counts.ms, 50).toFixed(2),
      p95: +percentile(r.counts.ms, 95).toFixed(2),
      searchesPerQuery: +(r.counts.searches / n).toFixed(2),
      tokensPerSearch: +(r.counts.tokens / r.counts.searches).toFixed(1),
    };
    process.stdout.write(`speed ${names[i]} ${JSON.stringify(figures)}\n`);
    await r.dossier.close();
  }
}
