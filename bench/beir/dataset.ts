import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Judgments } from './metrics.ts';

/** One corpus record of a BEIR dataset. */
export interface BeirDoc {
  id: string;
  title: string;
  text: string;
}

/** Records of a JSON-lines file, one at a time, so a large corpus never sits in memory whole. */
async function* jsonLines(file: string): AsyncGenerator<Record<string, unknown>> {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) if (line.trim()) yield JSON.parse(line) as Record<string, unknown>;
}

/** The corpus in file order, at most `limit` records. */
export async function* readCorpus(dir: string, limit = Number.POSITIVE_INFINITY): AsyncGenerator<BeirDoc> {
  let n = 0;
  for await (const r of jsonLines(join(dir, 'corpus.jsonl'))) {
    if (n++ >= limit) return;
    yield { id: String(r._id), title: String(r.title ?? ''), text: String(r.text ?? '') };
  }
}

/** Batches of `size` records from an async source. */
export async function* batches<T>(source: AsyncIterable<T>, size: number): AsyncGenerator<T[]> {
  let batch: T[] = [];
  for await (const item of source) {
    batch.push(item);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** Query id → text of every query in queries.jsonl. */
export async function readQueries(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const r of jsonLines(join(dir, 'queries.jsonl'))) out.set(String(r._id), String(r.text ?? ''));
  return out;
}

/** Query id → judged documents from a qrels TSV (`query-id corpus-id score`, header line first). */
export async function readQrels(dir: string, split = 'test'): Promise<Map<string, Map<string, number>>> {
  const lines = (await readFile(join(dir, 'qrels', `${split}.tsv`), 'utf8')).split(/\r?\n/);
  const out = new Map<string, Map<string, number>>();
  for (const line of lines.slice(1)) {
    const [qid, docId, score] = line.split('\t');
    if (!qid || !docId || score === undefined) continue;
    const judged = out.get(qid) ?? new Map<string, number>();
    judged.set(docId, Number(score));
    out.set(qid, judged);
  }
  return out;
}

/** The test queries (those with judgments) that have text, at most `limit`, with their judgments. */
export async function readTestQueries(dir: string, limit = Number.POSITIVE_INFINITY) {
  const [texts, allQrels] = await Promise.all([readQueries(dir), readQrels(dir)]);
  const queries: { id: string; text: string }[] = [];
  const qrels = new Map<string, Judgments>();
  for (const [id, judged] of allQrels) {
    const text = texts.get(id);
    if (text === undefined || queries.length >= limit) continue;
    queries.push({ id, text });
    qrels.set(id, judged);
  }
  return { queries, qrels, missingText: [...allQrels.keys()].filter((id) => !texts.has(id)) };
}

/** A corpus record as the Markdown document the pipeline ingests. */
export const toMarkdown = (d: BeirDoc): string => (d.title ? `# ${d.title}\n\n${d.text}\n` : `${d.text}\n`);
