import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createDossier, type Dossier } from '@dossier/adapters';
import type { DocumentView, ScopedDossier } from '@dossier/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileCorpus } from './hostile/corpus.ts';

/** Every file under a folder, recursively. */
const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));

describe('the hostile corpus, ingested through the real pipeline and conversion pool', () => {
  const corpus = hostileCorpus();
  let dataDir: string;
  let dossier: Dossier;
  let d: ScopedDossier;
  let collectionId: string;
  const results = new Map<string, DocumentView>();

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'dossier-hostile-'));
    dossier = await createDossier({
      dataDir,
      embeddingModel: 'none',
      workers: { concurrency: 2, pollMs: 50 },
      conversion: { threads: 1, timeoutMs: 60_000, maxMemoryMb: 512 },
    });
    d = await dossier.local();
    collectionId = (await d.collections.create({ name: 'hostile' })).id;
    for (const [i, f] of corpus.entries()) {
      const doc = await d.documents.add(collectionId, { filename: f.filename, bytes: f.bytes, metadata: { case: i } });
      results.set(String(i), doc);
    }
    await dossier.idle();
    for (const [i, doc] of results) results.set(i, await d.documents.get(doc.id));
  }, 600_000);

  afterAll(async () => {
    await dossier?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('holds at least 100 generated files', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(100);
  });

  it('brings every file to a terminal state, and every failure has a message saying what was wrong', () => {
    const stuck = [...results].filter(([, doc]) => doc.status !== 'ready' && doc.status !== 'error');
    expect(stuck.map(([i, doc]) => `${corpus[Number(i)]!.kind}: ${doc.status}`)).toEqual([]);
    for (const [i, doc] of results) {
      if (doc.status === 'error') expect(doc.errorMessage, corpus[Number(i)]!.kind).toMatch(/\w{3,}/);
    }
  });

  it('ends each file that cannot be read in error, with the reason', () => {
    const wrong = corpus.flatMap((f, i) => {
      const doc = results.get(String(i))!;
      if (f.expect !== 'error') return [];
      if (doc.status !== 'error') return [`${f.kind}: ended ${doc.status}`];
      if (f.message && !f.message.test(doc.errorMessage ?? '')) return [`${f.kind}: "${doc.errorMessage}"`];
      return [];
    });
    expect(wrong).toEqual([]);
  });

  it('never leaks internal details such as stack traces into error messages', () => {
    for (const doc of results.values()) expect(doc.errorMessage ?? '').not.toMatch(/\n\s+at |node_modules|\/work\//);
  });

  it('keeps stored file names to one safe path segment', () => {
    for (const doc of results.values()) {
      expect(doc.filename).not.toMatch(/[\\/\0\n]/);
      expect(doc.filename.length).toBeLessThanOrEqual(255);
    }
  });

  it('writes nothing outside the data directory', () => {
    expect(existsSync('/tmp/dossier-evil.txt')).toBe(false);
    expect(existsSync('/tmp/dossier-escape.md')).toBe(false);
    expect(existsSync('/etc/dossier-evil')).toBe(false);
    for (const file of walk(dataDir)) expect(relative(dataDir, file).startsWith('..')).toBe(false);
  });

  it('still ingests and finds an ordinary document afterwards', async () => {
    const doc = await d.documents.add(collectionId, { filename: 'ordinary.md', bytes: Buffer.from('# Ordinary\n\nThe quick brown fox jumps over the lazy dog.\n') });
    const done = await d.documents.wait(doc.id, 60_000);
    expect(done.status).toBe('ready');
    const { results: hits } = await d.search.query(collectionId, { q: 'quick brown fox' });
    expect(hits[0]?.document.id).toBe(doc.id);
  });
});
