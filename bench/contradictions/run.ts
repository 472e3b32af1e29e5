/**
 * Contradiction candidate benchmark: how many labelled contradiction pairs end up in one judged group, and what
 * that costs in judge calls, using the service's own grouping (lexical, the default of a collection without an
 * embedding model) with the collection defaults.
 *
 *   node --import tsx bench/contradictions/run.ts [--dir <folder with claims.jsonl and pairs.tsv>]
 *
 * claims.jsonl: one {"id","documentId","text"} per line; pairs.tsv: idA<TAB>idB<TAB>label (contradiction,
 * entailment or neutral). Without --dir the set is derived from SciFact in ../shared/eval (see scifact-set.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_GROUPING, groupClaims } from '@dossier/core/internal';
import { type LabelledSet, scifactSet } from './scifact-set.ts';

function readSet(dir: string): LabelledSet {
  const claims = readFileSync(join(dir, 'claims.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => {
      const row = JSON.parse(line) as { id: unknown; documentId?: unknown; text: unknown };
      return { id: String(row.id), documentId: String(row.documentId ?? row.id), text: String(row.text) };
    });
  const pairs = readFileSync(join(dir, 'pairs.tsv'), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => {
      const [left = '', right = '', label = ''] = line.split('\t');
      return { left: left.trim(), right: right.trim(), label: label.trim() as LabelledSet['pairs'][number]['label'] };
    });
  return { claims, pairs };
}

const { values } = parseArgs({ options: { dir: { type: 'string' } } });
const evalDir = resolve(import.meta.dirname, '..', '..', '..', 'shared', 'eval');
if (!values.dir && !existsSync(evalDir)) throw new Error(`no --dir given and no SciFact at ${evalDir}`);
const set = values.dir ? readSet(values.dir) : await scifactSet(evalDir);

const started = performance.now();
const groups = await groupClaims(set.claims, DEFAULT_GROUPING);
const elapsed = performance.now() - started;
const groupOf = new Map<string, number>();
groups.forEach((group, index) => {
  for (const member of group) groupOf.set(set.claims[member]!.id, index);
});
const contradictions = set.pairs.filter((pair) => pair.label === 'contradiction');
const together = contradictions.filter((pair) => groupOf.has(pair.left) && groupOf.get(pair.left) === groupOf.get(pair.right));
const grouped = groups.reduce((sum, group) => sum + group.length, 0);
const recall = contradictions.length ? together.length / contradictions.length : Number.NaN;

console.log(`claims                      ${set.claims.length}`);
console.log(`contradiction pairs         ${contradictions.length}`);
console.log(`recall (pair in one group)  ${recall.toFixed(3)}   goal ≥ 0.90`);
console.log(`judge calls                 ${groups.length}   (${(groups.length / set.claims.length).toFixed(3)} per claim; goal ≤ 0.25)`);
console.log(`mean group size             ${(grouped / Math.max(1, groups.length)).toFixed(2)}`);
console.log(`grouping time               ${elapsed.toFixed(0)} ms`);
