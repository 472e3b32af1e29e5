import { invalid } from '../domain/errors.ts';
import type { GoldenQuery } from '../ports/evaluation-store.ts';
import { MAX_GOLDEN_QUERIES } from './schemas.ts';

/** Judgments of BEIR qrels: query id → corpus id → grade, in file order. */
function parseQrels(tsv: string): Map<string, Map<string, number>> {
  const qrels = new Map<string, Map<string, number>>();
  for (const [i, line] of tsv.split(/\r?\n/).entries()) {
    if (line.trim() === '') continue;
    const [qid, docId, score] = line.split('\t').map((p) => p.trim());
    if (i === 0 && !/^-?\d+$/.test(score ?? '')) continue; // the header line (query-id, corpus-id, score)
    if (!qid || !docId || !/^-?\d+$/.test(score ?? '')) throw invalid(`qrels line ${i + 1}: expected query-id<TAB>corpus-id<TAB>integer score`);
    const grades = qrels.get(qid) ?? new Map<string, number>();
    grades.set(docId, Math.max(0, Math.min(10, Number(score))));
    qrels.set(qid, grades);
  }
  return qrels;
}

/** Query texts of BEIR queries.jsonl by id. */
function parseQueries(jsonl: string): Map<string, string> {
  const texts = new Map<string, string>();
  for (const [i, line] of jsonl.split(/\r?\n/).entries()) {
    if (line.trim() === '') continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      throw invalid(`queries line ${i + 1}: not JSON`);
    }
    const { _id, text } = (row ?? {}) as { _id?: unknown; text?: unknown };
    if ((typeof _id !== 'string' && typeof _id !== 'number') || typeof text !== 'string') throw invalid(`queries line ${i + 1}: expected {"_id", "text"}`);
    texts.set(String(_id), text);
  }
  return texts;
}

/**
 * A golden set's queries from BEIR files: every query of the qrels that has a text and at least one judgment above
 * 0, in qrels order (queries.jsonl may hold every split's queries; only judged ones are kept).
 */
export function goldenQueriesFromBeir(queriesJsonl: string, qrelsTsv: string): GoldenQuery[] {
  const texts = parseQueries(queriesJsonl);
  const out: GoldenQuery[] = [];
  const missing: string[] = [];
  for (const [qid, grades] of parseQrels(qrelsTsv)) {
    const text = texts.get(qid)?.trim();
    if (!text) {
      missing.push(qid);
      continue;
    }
    if (![...grades.values()].some((g) => g > 0)) continue;
    out.push({ id: qid, query: text.slice(0, 2000), relevant: [...grades].slice(0, 100).map(([target, grade]) => ({ target, grade })) });
  }
  if (missing.length > 0) throw invalid(`${missing.length} judged queries have no text in queries.jsonl (first: ${missing[0]})`);
  if (out.length === 0) throw invalid('the qrels judge no query as relevant to anything');
  if (out.length > MAX_GOLDEN_QUERIES) throw invalid(`a golden set holds at most ${MAX_GOLDEN_QUERIES} queries (these files have ${out.length})`);
  return out;
}
