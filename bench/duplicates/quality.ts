/**
 * Near-duplicate pair precision and recall on the evaluation set of variants.ts, through the real pipeline:
 * every document is uploaded into an embedded Dossier (PDF, DOCX and HTML through the converters), a detection
 * run groups them, and every pair of documents in one group counts as a predicted pair. Also checks that every
 * near-duplicate member carries shared passages whose spans cut its excerpt out of the Markdown.
 *
 *   node --import tsx bench/duplicates/quality.ts [--sources 60] [--threshold 0.5]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createDossier } from '@dossier/adapters';
import { type EvalDoc, evaluationSet, type Kind, NEGATIVE_KINDS, POSITIVE_KINDS, pairTruth } from './variants.ts';

const { values } = parseArgs({ options: { sources: { type: 'string', default: '60' }, threshold: { type: 'string' } } });
const evalDir = resolve(import.meta.dirname, '..', '..', '..', 'shared', 'eval');
const docs = await evaluationSet(evalDir, Number(values.sources));
const dataDir = mkdtempSync(join(tmpdir(), 'dossier-dup-quality-'));
const dossier = await createDossier({ dataDir, embeddingModel: 'none', allowModelDownload: false });
const local = await dossier.local();
const collection = await local.collections.create({ name: 'duplicates' });
await local.collections.update(collection.id, {
  enableSummarization: false,
  enableCaptioning: false,
  ...(values.threshold ? { duplicateThreshold: Number(values.threshold) } : {}),
});

const started = performance.now();
const nameOf = new Map<string, EvalDoc>();
for (const doc of docs) {
  const bytes = typeof doc.content === 'string' ? new TextEncoder().encode(doc.content) : doc.content;
  const added = await local.documents.add(collection.id, { filename: doc.filename, bytes });
  nameOf.set(added.id, doc);
}
await dossier.idle();
const ingested = performance.now();
await local.duplicates.detect(collection.id);
await dossier.idle();
const detected = performance.now();

const predicted = new Set<string>();
const key = (a: string, b: string) => [a, b].sort().join('|');
let members = 0;
let withPassages = 0;
const withoutPassages: string[] = [];
for (let offset = 0; ; offset += 100) {
  const page = await local.duplicates.list(collection.id, { limit: 100, offset });
  for (const group of page.items) {
    const names = group.members.map((member) => nameOf.get(member.documentId)!.name);
    for (const [index, left] of names.entries()) for (const right of names.slice(index + 1)) predicted.add(key(left, right));
    for (const member of group.members.filter((m) => m.relationship === 'near_duplicate')) {
      members++;
      if ((member.sharedPassages?.length ?? 0) > 0) withPassages++;
      else
        withoutPassages.push(
          `${nameOf.get(member.documentId)!.name} (canonical ${nameOf.get(group.canonicalDocumentId)!.name}, coverage ${member.coverageToCanonical})`,
        );
    }
  }
  if (offset + 100 >= page.total) break;
}
await dossier.close();
rmSync(dataDir, { recursive: true, force: true });

const byName = new Map(docs.map((doc) => [doc.name, doc]));
let truePositives = 0;
const falseByKind = new Map<string, number>();
for (const pair of predicted) {
  const [left, right] = pair.split('|').map((name) => byName.get(name)!) as [EvalDoc, EvalDoc];
  const truth = pairTruth(left, right);
  if (truth === true) truePositives++;
  if (truth === false) {
    const kinds = [left.kind, right.kind].sort().join('+');
    falseByKind.set(kinds, (falseByKind.get(kinds) ?? 0) + 1);
  }
}
const falsePositives = [...falseByKind.values()].reduce((sum, count) => sum + count, 0);
console.log(
  `documents ${docs.length} (${Number(values.sources)} sources), threshold ${values.threshold ?? 'default'}; ingest ${((ingested - started) / 1000).toFixed(1)} s, detect ${((detected - ingested) / 1000).toFixed(1)} s`,
);
console.log(
  `predicted pairs ${predicted.size}; precision ${(truePositives / Math.max(1, truePositives + falsePositives)).toFixed(3)} (${falsePositives} false pairs: ${JSON.stringify(Object.fromEntries(falseByKind))})`,
);
console.log(
  `near-duplicate members with shared passages: ${withPassages}/${members}${withoutPassages.length ? `; without: ${withoutPassages.join(', ')}` : ''}`,
);
const variantsOf = new Map<string, EvalDoc[]>();
for (const doc of docs) if (doc.sourceOf) variantsOf.set(doc.sourceOf, [...(variantsOf.get(doc.sourceOf) ?? []), doc]);
for (const kind of [...POSITIVE_KINDS, 'heavy_rewrite', ...NEGATIVE_KINDS.filter((k) => k !== 'same_topic')] as Kind[]) {
  const pairs = [...variantsOf.entries()].flatMap(([source, variants]) => variants.filter((v) => v.kind === kind).map((v) => key(source, v.name)));
  const found = pairs.filter((pair) => predicted.has(pair)).length;
  const label = (NEGATIVE_KINDS as readonly string[]).includes(kind) ? `${kind} (negative)` : kind;
  console.log(`grouped with its source: ${label.padEnd(26)} ${(found / Math.max(1, pairs.length)).toFixed(3)} (${found}/${pairs.length})`);
}
