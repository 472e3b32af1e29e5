/**
 * Ingest every file of a folder into an embedded Dossier and search it, with no server:
 *
 *   node --import tsx examples/ingest-folder.ts <folder> "<query>" [--data-dir ./example-data]
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createDossier } from '@dossier/adapters';

async function main(): Promise<void> {
  const [folder, query, flag, dataDirArg] = process.argv.slice(2);
  if (!folder || !query) throw new Error('usage: ingest-folder.ts <folder> "<query>" [--data-dir <dir>]');
  const dataDir = flag === '--data-dir' && dataDirArg ? dataDirArg : './example-data';
  const dossier = await createDossier({ dataDir });
  try {
    const d = await dossier.local();
    const col = await d.collections.create({ name: `folder ${folder}` });
    console.log(`collection ${col.id} (embedding model: ${col.embeddingModel})`);
    const files = readdirSync(folder).filter((f) => statSync(join(folder, f)).isFile());
    const docs = [];
    for (const f of files) docs.push(await d.documents.add(col.id, { filename: f, bytes: readFileSync(join(folder, f)) }));
    await dossier.idle();
    for (const doc of docs) {
      const now = await d.documents.get(doc.id);
      console.log(`${now.status.padEnd(6)} ${now.filename}${now.errorMessage ? ` — ${now.errorMessage}` : ` (${now.sectionCount} sections, ${now.chunkCount} chunks)`}`);
    }
    const { results } = await d.search.query(col.id, { q: query, limit: 5 });
    console.log(`\nTop results for "${query}":`);
    for (const r of results) {
      console.log(`\n${r.score.toFixed(3)}  ${r.document.filename} › ${r.section.title}\n  ${r.chunk.content.slice(0, 200).replace(/\s+/g, ' ')}…`);
    }
  } finally {
    await dossier.close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
