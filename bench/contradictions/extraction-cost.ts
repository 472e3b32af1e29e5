/**
 * What claim extraction costs per document: model calls and input tokens (cl100k, counted on the messages sent)
 * for every file of ../shared/eval/docs, ingested through the real pipeline with a scripted model that answers
 * each call with one claim per section.
 *
 *   node --import tsx bench/contradictions/extraction-cost.ts
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createDossier } from '@dossier/adapters';
import { countTokens } from '@dossier/core/internal';
import { isClaimExtraction, recordClaimsTurn, ScriptedModel, scriptedResolver } from '@dossier/core/testing';

const docsDir = resolve(import.meta.dirname, '..', '..', '..', 'shared', 'eval', 'docs');
const model = new ScriptedModel((request) => {
  if (!isClaimExtraction(request)) return { text: 'A summary.' };
  const sections = [...String(request.messages.at(-1)?.content ?? '').matchAll(/section="(\d+)"/g)].map((match) => Number(match[1]));
  return recordClaimsTurn(sections.map((section) => ({ section, text: 'A claim of this section.', importance: 3, sourceText: '' })));
});
const dataDir = mkdtempSync(join(tmpdir(), 'dossier-claim-cost-'));
const dossier = await createDossier({ dataDir, embeddingModel: 'none', allowModelDownload: false, models: scriptedResolver(model) });
const local = await dossier.local();
const collection = await local.collections.create({ name: 'cost' });
await local.collections.update(collection.id, { enableSummarization: false, enableCaptioning: false });

const rows: { file: string; calls: number; tokens: number; claims: number }[] = [];
for (const file of readdirSync(docsDir)
  .filter((name) => name !== 'manifest.tsv')
  .sort()) {
  const before = model.calls.length;
  const doc = await local.documents.add(collection.id, { filename: file, bytes: readFileSync(join(docsDir, file)) });
  await local.documents.wait(doc.id, 120_000);
  await dossier.idle();
  const calls = model.calls.slice(before).filter((call) => isClaimExtraction(call.request));
  const tokens = calls.reduce((sum, call) => sum + call.request.messages.reduce((inner, message) => inner + countTokens(String(message.content)), 0), 0);
  rows.push({ file, calls: calls.length, tokens, claims: (await local.claims.documentClaims(doc.id, 1)).claims.length });
}
await dossier.close();
rmSync(dataDir, { recursive: true, force: true });

console.log('file\tcalls\tinput tokens\tclaims (one per section)');
for (const row of rows) console.log(`${row.file}\t${row.calls}\t${row.tokens}\t${row.claims}`);
const total = rows.reduce((sum, row) => ({ calls: sum.calls + row.calls, tokens: sum.tokens + row.tokens }), { calls: 0, tokens: 0 });
console.log(`mean per document: ${(total.calls / rows.length).toFixed(2)} calls, ${Math.round(total.tokens / rows.length)} input tokens`);
