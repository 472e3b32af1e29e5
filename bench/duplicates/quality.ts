/**
 * Near-duplicate pair precision and recall on the evaluation set of variants.ts, through the real pipeline:
 * every document is ingested into an embedded Dossier, a detection run groups them, and every pair of documents
 * in one group counts as a predicted pair.
 *
 *   node --import tsx bench/duplicates/quality.ts [--sources 150] [--threshold 0.8]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createDossier } from '@dossier/adapters';
import { type EvalDoc, evaluationSet, type Kind } from './variants.ts';

const { values } = parseArgs({ options: { sources: { type: 'string', default: '150' }, threshold: { type: 'string' } } });
const evalDir = resolve(import.meta.dirname, '..', '..', '..', 'shared', 'eval');
const docs = await evaluationSet(evalDir, Number(values.sources));
const dataDir = mkdtempSync(join(tmpdir(), 'dossier-dup-quality-'));
const dossier = await createDossier({ dataDir, embeddingModel: 'none', allowModelDownload: false });
const local = await dossier.local();
const collection = await local.collections.create({ name: 'duplicates' });
await local.collections.update(collection.id, { enableSummarization: false, enableCaptioning: false, ...(values.threshold ? { duplicateThreshold: Number(values.threshold) } : {}) });

const nameOf = new Map<string, EvalDoc>();
for (const doc of docs) {
  const filename = doc.kind === 'html' ? `${doc.name}.html` : `${doc.name}.md`;
  const added = await local.documents.add(collection.id, { filename, bytes: new TextEncoder().encode(doc.content) });
  nameOf.set(added.id, doc);
}
await dossier.idle();
await local.duplicates.detect(collection.id);
await dossier.idle();

const predicted = new Set<string>();
const key = (a: string, b: string) => [a, b].sort().join('|');
for (let offset = 0; ; offset += 100) {
  const page = await local.duplicates.list(collection.id, { limit: 100, offset });
  for (const group of page.items) {
    const names = group.members.map((member) => nameOf.get(member.documentId)!.name);
    for (const [index, left] of names.entries()) for (const right of names.slice(index + 1)) predicted.add(key(left, right));
  }
  if (offset + 100 >= page.total) break;
}
await dossier.close();
rmSync(dataDir, { recursive: true, force: true });

// Truth: a variant and its source, and two variants of one source (a group holds them together).
const POSITIVE: Kind[] = ['exact', 'reformatted', 'html', 'truncation', 'excerpt', 'light_rewrite'];
const variantsOf = new Map<string, EvalDoc[]>();
for (const doc of docs) if (doc.sourceOf) variantsOf.set(doc.sourceOf, [...(variantsOf.get(doc.sourceOf) ?? []), doc]);
const related = (a: EvalDoc, b: EvalDoc): boolean => (a.sourceOf ?? a.name) === (b.sourceOf ?? b.name) && a.kind !== 'same_topic' && b.kind !== 'same_topic';
const byName = new Map(docs.map((doc) => [doc.name, doc]));
let truePositives = 0;
let falsePositives = 0;
for (const pair of predicted) {
  const [left, right] = pair.split('|').map((name) => byName.get(name)!) as [EvalDoc, EvalDoc];
  if (related(left, right)) truePositives++;
  else falsePositives++;
}
console.log(`documents ${docs.length} (${Number(values.sources)} sources), threshold ${values.threshold ?? 'default'}`);
console.log(`predicted pairs ${predicted.size}; precision ${(truePositives / Math.max(1, predicted.size)).toFixed(3)} (${falsePositives} pairs of unrelated documents)   goal ≥ 0.95`);
for (const kind of [...POSITIVE, 'heavy_rewrite' as Kind]) {
  const pairs = [...variantsOf.entries()].flatMap(([source, variants]) => variants.filter((v) => v.kind === kind).map((v) => key(source, v.name)));
  const found = pairs.filter((pair) => predicted.has(pair)).length;
  console.log(`recall ${kind.padEnd(14)} ${(found / Math.max(1, pairs.length)).toFixed(3)} (${found}/${pairs.length})`);
}
