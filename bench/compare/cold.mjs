// A cold process: import the engine, open what a previous process saved, run one query; prints the milliseconds
// since this process started (performance.now(): Node's own start-up included). Plain node, no loader; Dossier runs
// from an installed copy of the built packages (run.ts lays it out), whose entry is the last argument.
// Usage: node cold.mjs <dossier|minisearch|orama> <dir> <query> [collection id] [entry of @dossier/adapters]
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

const [engine, dir, query, collectionId, entry] = process.argv.slice(2);
let hits;
if (engine === 'dossier') {
  const { createDossier } = await import(entry ?? '@dossier/adapters');
  const dossier = await createDossier({ dataDir: dir, embeddingModel: 'none' });
  const { results } = await (await dossier.local()).search.query(collectionId, { q: query, limit: 10 });
  hits = results.length;
  report();
  await dossier.close();
} else {
  const { createMiniSearch, createOrama } = await import('./in-memory.mjs');
  const index = engine === 'minisearch' ? await createMiniSearch() : await createOrama();
  await index.load(await readFile(join(dir, `${engine}.json`), 'utf8'));
  hits = (await index.search(query, 10)).length;
  report();
}

function report() {
  process.stdout.write(`${JSON.stringify({ coldMs: performance.now(), hits })}\n`);
}
