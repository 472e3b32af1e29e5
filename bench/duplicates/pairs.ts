/**
 * Pair-level figures of near-duplicate detection on the evaluation set of variants.ts, per kind and per
 * threshold, for the detection of issue 14 (legacy.ts) and today's (@dossier/core): each source is scored
 * against each of its variants, and each same-topic abstract against its partner. A pair counts as found when
 * the fingerprint index proposes it as a candidate and its verified coverage reaches the threshold.
 * Documents are converted by the real converters first (PDF, DOCX, HTML).
 *
 *   node --import tsx bench/duplicates/pairs.ts [--sources 100]
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { duplicateProfile, scoreDuplicatePair } from '@dossier/core/internal';
import { markdownOfDoc } from './convert.ts';
import { legacyScore, legacyShingles } from './legacy.ts';
import { type EvalDoc, evaluationSet, type Kind, NEGATIVE_KINDS, POSITIVE_KINDS } from './variants.ts';

const { values } = parseArgs({ options: { sources: { type: 'string', default: '100' } } });
const THRESHOLDS = [0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9];
const evalDir = resolve(import.meta.dirname, '..', '..', '..', 'shared', 'eval');
const docs = await evaluationSet(evalDir, Number(values.sources));
const markdown = new Map<string, string>();
for (const doc of docs) markdown.set(doc.name, await markdownOfDoc(doc));

/** The scored pairs: every variant with its source, and the same-topic abstracts with their partners. */
function pairsToScore(): { kind: Kind; left: EvalDoc; right: EvalDoc }[] {
  const byName = new Map(docs.map((doc) => [doc.name, doc]));
  const pairs = docs.filter((doc) => doc.sourceOf).map((doc) => ({ kind: doc.kind, left: byName.get(doc.sourceOf!)!, right: doc }));
  const topical = docs.filter((doc) => doc.kind === 'same_topic');
  for (let index = 0; index + 1 < topical.length; index += 2) pairs.push({ kind: 'same_topic', left: topical[index]!, right: topical[index + 1]! });
  return pairs;
}

type Scorer = (left: EvalDoc, right: EvalDoc, threshold: number) => { coverage: number; candidate: boolean };
const legacy = new Map(docs.map((doc) => [doc.name, legacyShingles(markdown.get(doc.name)!)]));
const profiles = new Map(docs.map((doc) => [doc.name, duplicateProfile(markdown.get(doc.name)!)]));
const scorers: Record<string, Scorer> = {
  'issue 14 (4-word shingles, 1 in 8)': (left, right, threshold) => legacyScore(legacy.get(left.name)!, legacy.get(right.name)!, threshold),
  today: (left, right) => scoreDuplicatePair(profiles.get(left.name)!, profiles.get(right.name)!),
};

const pairs = pairsToScore();
for (const [method, score] of Object.entries(scorers)) {
  console.log(`\n### ${method} — ${docs.length} documents, ${pairs.length} scored pairs`);
  console.log(`| kind | pairs | ${THRESHOLDS.join(' | ')} |`);
  console.log(`|---|---|${THRESHOLDS.map(() => '---').join('|')}|`);
  const started = performance.now();
  for (const kind of [...POSITIVE_KINDS, 'heavy_rewrite', ...NEGATIVE_KINDS] as Kind[]) {
    const ofKind = pairs.filter((pair) => pair.kind === kind);
    const cells = THRESHOLDS.map((threshold) => {
      const found = ofKind.filter((pair) => {
        const scored = score(pair.left, pair.right, threshold);
        return scored.candidate && scored.coverage >= threshold;
      }).length;
      return (found / Math.max(1, ofKind.length)).toFixed(2);
    });
    const label = (NEGATIVE_KINDS as readonly string[]).includes(kind) ? `${kind} (negative: share flagged)` : kind;
    console.log(`| ${label} | ${ofKind.length} | ${cells.join(' | ')} |`);
  }
  console.log(`scored in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
