import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { composeMetadataStore, DossierError } from '@dossier/core';
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
      expect(rows).toEqual(
        Object.keys(sqliteMigrations)
          .sort()
          .map((name) => ({ name })),
      );
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

describe('composeMetadataStore (issue 35: one store replaced, the others kept)', () => {
  const stale = { done: '2024-05-01T00:00:00.000Z', pending: '2024-05-01T00:00:00.000Z' };
  const claim = { scope: 'caller', key: 'k1', fingerprint: 'f1', createdAt: '2024-05-01T00:00:10.000Z' };

  it('serves the replaced part from its own store and every other part, migrate and close from the base', async () => {
    const base = createSqliteMetadataStore({ filename: ':memory:' });
    const other = createSqliteMetadataStore({ filename: ':memory:' });
    await Promise.all([base.migrate(), other.migrate()]);
    const composed = composeMetadataStore(base, { idempotency: other });
    expect(await composed.claimIdempotencyKey(claim, stale)).toBeNull();
    expect(await other.claimIdempotencyKey(claim, stale)).toMatchObject({ state: 'pending' });
    expect(await base.claimIdempotencyKey(claim, stale)).toBeNull(); // the base never saw the key
    await composed.createAccount({ id: 'acc_1', email: 'a@example.com', passwordHash: 'h', createdAt: claim.createdAt });
    expect(await base.findAccountByEmail('a@example.com')).toMatchObject({ id: 'acc_1' });
    await composed.close();
    await expect(base.getAccount('acc_1')).rejects.toThrow();
    await other.close();
  });

  it('refuses a replacing store that lacks a method of its part, naming both', () => {
    const base = createSqliteMetadataStore({ filename: ':memory:' });
    const partial = { claimIdempotencyKey: async () => null, completeIdempotencyKey: async () => {} };
    expect(() => composeMetadataStore(base, { idempotency: partial as never })).toThrow(DossierError);
    expect(() => composeMetadataStore(base, { idempotency: partial as never })).toThrow(/idempotency store .* no method releaseIdempotencyKey/);
  });
});
