/**
 * A labelled claim-pair set derived, at bench time, from BEIR SciFact's claims (../shared/eval; never copied into
 * the repository). SciFact labels each claim SUPPORT or CONTRADICT against sentences of an abstract; two claims
 * judged against the same sentences with opposite labels contradict each other, two with the same label entail.
 * Every other pair is neutral. Each claim stands for its own document.
 */
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface LabelledSet {
  claims: { id: string; documentId: string; text: string }[];
  pairs: { left: string; right: string; label: 'contradiction' | 'entailment' | 'neutral' }[];
}

type Evidence = Record<string, { sentences: number[]; label: string }[]>;

async function* lines(path: string): AsyncGenerator<Record<string, unknown>> {
  for await (const line of createInterface({ input: createReadStream(path) })) if (line.trim()) yield JSON.parse(line);
}

export async function scifactSet(evalDir: string): Promise<LabelledSet> {
  const claims: LabelledSet['claims'] = [];
  const byEvidence = new Map<string, { id: string; label: string }[]>();
  for await (const row of lines(join(evalDir, 'beir', 'scifact', 'queries.jsonl'))) {
    const id = String(row._id);
    claims.push({ id, documentId: `claim-${id}`, text: String(row.text) });
    for (const [doc, judgements] of Object.entries((row.metadata ?? {}) as Evidence)) {
      for (const judgement of judgements) {
        const key = `${doc}:${[...judgement.sentences].sort().join(',')}`;
        byEvidence.set(key, [...(byEvidence.get(key) ?? []), { id, label: judgement.label }]);
      }
    }
  }
  const pairs: LabelledSet['pairs'] = [];
  const seen = new Set<string>();
  for (const judged of byEvidence.values()) {
    for (const [index, left] of judged.entries()) {
      for (const right of judged.slice(index + 1)) {
        const key = [left.id, right.id].sort().join('|');
        if (left.id === right.id || seen.has(key)) continue;
        seen.add(key);
        pairs.push({ left: left.id, right: right.id, label: left.label === right.label ? 'entailment' : 'contradiction' });
      }
    }
  }
  return { claims, pairs };
}
