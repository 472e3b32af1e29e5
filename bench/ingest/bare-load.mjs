// The bare engine that issue 11's ingestion figures are measured beside. Plain JavaScript (types in bare-load.d.mts), so
// that the TypeScript benches and installed-memory.mjs, which runs with plain node in an app of installed packages,
// share this one copy.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';

/** Rows (id, text) loaded into one LanceDB table 1,000 at a time, then its FTS index; returns seconds. */
export async function bareLanceLoad(texts) {
  const dir = await mkdtemp(join(tmpdir(), 'dossier-bare-'));
  const db = await lancedb.connect(dir);
  try {
    const t0 = performance.now();
    let table = null;
    for (let i = 0; i < texts.length; i += 1000) {
      const rows = texts.slice(i, i + 1000);
      if (table) await table.add(rows);
      else table = await db.createTable('bare', rows);
    }
    await table?.createIndex('text', { config: lancedb.Index.fts() });
    table?.close();
    return (performance.now() - t0) / 1000;
  } finally {
    db.close();
    await rm(dir, { recursive: true, force: true });
  }
}
