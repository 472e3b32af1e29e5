import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDossier } from '@dossier/adapters';
import { describe, expect, it } from 'vitest';
import { databaseForTests } from '../../adapters/test/fixtures/postgres-database.ts';
import { loadConfig } from '../src/config.ts';
import { startTestServer, type TestServer } from './helpers.ts';

/** The server with its metadata and job queue in Postgres (issue 13: DOSSIER_DATABASE_URL), on a fresh database. */

let t: TestServer | undefined;
const { available, database } = await databaseForTests('dossier_server', async () => t?.close());

describe.skipIf(!available)('metadata and jobs in Postgres', () => {
  it('ingests, filters and answers queries with every row in Postgres and no SQLite file in the data directory', async () => {
    const db = database();
    const server = await startTestServer({ config: { databaseUrl: db.url } });
    t = server;
    const collection = await server.createCollection({ name: 'shared' });
    const doc = await server.ingest(collection.id, 'harbour.md', '# Harbour\n\n## Tides\n\nThe harbour master logs every tide.\n', {
      tags: ['ops', 'coast'],
      metadata: { region: 'north', year: 2024 },
    });
    await server.ingest(collection.id, 'other.md', '# Other\n\nNothing about tides here, only the harbour wall.\n', { tags: ['misc'] });

    const hits = await server.request('POST', `/v1/collections/${collection.id}/query`, {
      json: { q: 'tide', tags: ['ops'], anyTags: ['coast', 'misc'], metadata: { region: 'north', year: 2024 } },
    });
    expect(hits.status).toBe(200);
    expect(new Set(hits.body.map((hit: { document: { id: string } }) => hit.document.id))).toEqual(new Set([doc.id]));
    const tags = await server.request('GET', `/v1/collections/${collection.id}/tags`);
    expect(tags.body).toEqual({
      tags: [
        { name: 'coast', count: 1 },
        { name: 'misc', count: 1 },
        { name: 'ops', count: 1 },
      ],
      hasMetadata: true,
    });

    const documents = await db.query<{ id: string; status: string; tags: string[]; metadata: object }>(
      'select id, status, tags, metadata from documents where collection_id = $1 order by filename',
      [collection.id],
    );
    expect(documents.map((row) => row.status)).toEqual(['ready', 'ready']);
    expect(documents[0]).toMatchObject({ id: doc.id, tags: ['ops', 'coast'], metadata: { region: 'north', year: 2024 } });
    const sections = await db.query<{ n: string }>('select count(*) as n from sections where document_id = $1', [doc.id]);
    expect(Number(sections[0]?.n)).toBeGreaterThan(0);
    const jobs = await db.query<{ state: string }>('select distinct state from jobs');
    expect(jobs.map((row) => row.state)).toEqual(['done']);
    expect(existsSync(join(server.dataDir, 'dossier.db'))).toBe(false);
    expect(existsSync(join(server.dataDir, 'jobs.db'))).toBe(false);
  });
});

describe('DOSSIER_DATABASE_URL', () => {
  it('is unset by default (SQLite) and takes a postgres:// URL from the environment only', () => {
    expect(loadConfig([], {}).databaseUrl).toBeNull();
    expect(loadConfig([], { DOSSIER_DATABASE_URL: 'postgresql://app:pw@db:5432/dossier' }).databaseUrl).toBe('postgresql://app:pw@db:5432/dossier');
    expect(() => loadConfig(['--database-url', 'postgres://db/x'], {})).toThrow(/Unknown option --database-url/);
  });

  it('names the host and database it cannot reach at start, never the password', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dossier-no-db-'));
    try {
      const starting = createDossier({ dataDir, databaseUrl: 'postgres://app:hunter2@127.0.0.1:1/dossier', embeddingModel: 'none', allowModelDownload: false });
      await expect(starting).rejects.toThrow(/Cannot use the database dossier at 127\.0\.0\.1:1 \(DOSSIER_DATABASE_URL\): ECONNREFUSED/);
      await expect(starting).rejects.not.toThrow(/hunter2/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses another scheme without repeating the URL, which may hold a password', () => {
    expect(() => loadConfig([], { DOSSIER_DATABASE_URL: 'mysql://app:hunter2@db/dossier' })).toThrow(
      /DOSSIER_DATABASE_URL: The database URL must look like postgres:/,
    );
    expect(() => loadConfig([], { DOSSIER_DATABASE_URL: 'mysql://app:hunter2@db/dossier' })).not.toThrow(/hunter2/);
  });
});
