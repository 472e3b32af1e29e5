// A consumer of the installed packages: plain node, no loader. Ingests a folder and prints the top hits of a query.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDossier } from '@dossier/adapters';

const [folder, query] = process.argv.slice(2);
const dataDir = mkdtempSync(join(tmpdir(), 'dossier-consumer-'));
const dossier = await createDossier({ dataDir, embeddingModel: 'none' });
try {
  const local = await dossier.local();
  const col = await local.collections.create({ name: 'notes' });
  for (const f of readdirSync(folder)) await local.documents.add(col.id, { filename: f, bytes: readFileSync(join(folder, f)) });
  await dossier.idle();
  const { results } = await local.search.query(col.id, { q: query, limit: 3 });
  for (const r of results) console.log(`${r.score.toFixed(3)} ${r.document.filename} ${r.chunk.content.slice(0, 60).replace(/\s+/g, ' ')}`);
} finally {
  await dossier.close();
  rmSync(dataDir, { recursive: true, force: true });
}
