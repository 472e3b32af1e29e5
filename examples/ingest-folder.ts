/**
 * Ingest every file of a folder into an embedded Dossier and search it, with no server:
 *
 *   node --import tsx examples/ingest-folder.ts <folder> "<query>" [--data-dir <dir>]
 *
 * Without --data-dir the data lives in a temporary directory that is removed at the end, so nothing is left
 * behind in the current directory (issue 12); with --data-dir it is kept there for a later run.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDossier } from '@dossier/adapters';

async function main(): Promise<void> {
  const [folder, query, flag, dataDirArg] = process.argv.slice(2);
  if (!folder || !query) throw new Error('usage: ingest-folder.ts <folder> "<query>" [--data-dir <dir>]');
  const keep = flag === '--data-dir' && dataDirArg ? dataDirArg : null;
  const dataDir = keep ?? mkdtempSync(join(tmpdir(), 'dossier-example-'));
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
    if (!keep) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
