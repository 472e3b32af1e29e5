import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { metadataStoreSuite } from '@dossier/core/testing';
import { createSqliteMetadataStore } from '../src/sqlite/metadata-store.ts';
import { sqliteMigrations } from '../src/kysely/migrations.ts';
import { openSqlite } from '../src/sqlite/driver.ts';

const base = mkdtempSync(join(tmpdir(), 'dossier-sqlite-meta-'));
let n = 0;

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

/** A fresh database file path under the temp dir (its directory does not exist yet: the store creates it). */
const freshFile = (): string => join(base, `db-${n++}`, 'metadata.sqlite');

metadataStoreSuite('sqlite :memory:', async () => createSqliteMetadataStore({ filename: ':memory:' }));

metadataStoreSuite('sqlite file', async () => createSqliteMetadataStore({ filename: freshFile() }), {
  persistentLocation: async () => {
    const filename = freshFile();
    return async () => createSqliteMetadataStore({ filename });
  },
});

describe('sqlite MetadataStore', () => {
  it('records each applied migration once, however often migrate runs', async () => {
    const filename = freshFile();
    for (let i = 0; i < 3; i++) {
      const store = createSqliteMetadataStore({ filename });
      await store.migrate();
      await store.close();
    }
    const db = openSqlite(filename, { readonly: true });
    try {
      const rows = db.prepare('select name from metadata_migrations order by name').all();
      expect(rows).toEqual(Object.keys(sqliteMigrations).sort().map((name) => ({ name })));
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
    }
  });

  it('reports the size of a file database in bytes', async () => {
    const store = createSqliteMetadataStore({ filename: freshFile() });
    await store.migrate();
    expect(await store.sizeBytes()).toBeGreaterThan(0);
    await store.close();
  });

  it('enforces foreign keys, so a document cannot point at a missing collection', async () => {
    const store = createSqliteMetadataStore({ filename: ':memory:' });
    await store.migrate();
    const doc = {
      id: 'doc',
      collectionId: 'missing',
      filename: 'a.md',
      contentType: null,
      status: 'pending' as const,
      fileSizeBytes: null,
      sectionCount: null,
      chunkCount: null,
      contentHash: null,
      storageKey: null,
      markdownStorageKey: null,
      derivedBytes: null,
      errorMessage: null,
      tags: [],
      metadata: {},
      chunkSize: 512,
      chunkOverlap: 64,
      canonical: true,
      createdAt: '2024-01-01T00:00:00.000Z',
      updatedAt: '2024-01-01T00:00:00.000Z',
    };
    await expect(store.insertDocument(doc)).rejects.toThrow(/FOREIGN KEY/);
    await store.close();
  });
});
