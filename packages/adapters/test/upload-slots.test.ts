import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BlobStore } from '@dossier/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createDossier } from '../src/create-dossier.ts';
import { createFsBlobStore } from '../src/fs/blob-store.ts';
import { createConversionPool } from '../src/pool/convert-pool.ts';
import { BACKGROUND_THREAD_NICENESS } from '../src/pool/lower-priority.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A filesystem blob store whose writes take 20 ms, counting how many run at once and recording the order they start in. */
function slowCountingStore(root: string) {
  const store = createFsBlobStore({ root });
  const seen = { atOnce: 0, most: 0, order: [] as string[] };
  const put: BlobStore['put'] = async (key, data, opts) => {
    seen.atOnce++;
    seen.most = Math.max(seen.most, seen.atOnce);
    seen.order.push(key);
    await sleep(20); // a real wait is the behaviour: a slow store, so writes let in together overlap and are counted
    await store.put(key, data, opts);
    seen.atOnce--;
  };
  return { store: { ...store, put } as BlobStore, seen };
}

async function uploadSix(uploads: { concurrency: number }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'dossier-slots-'));
  dirs.push(dataDir);
  const { store, seen } = slowCountingStore(join(dataDir, 'blobs'));
  const dossier = await createDossier({ dataDir, embeddingModel: 'none', blobs: store, uploads, workers: { concurrency: 0 } });
  try {
    const local = await dossier.local();
    const collection = await local.collections.create({ name: 'slots' });
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    const docs = await Promise.all(
      names.map((name) => local.documents.upload(collection.id, { filename: `${name}.md`, bytes: new TextEncoder().encode(`# ${name}\n`) })),
    );
    return { seen, docs };
  } finally {
    await dossier.close();
  }
}

describe('direct uploads', () => {
  it('are stored a few at a time, in the order they came, each answered once stored', async () => {
    const { seen, docs } = await uploadSix({ concurrency: 2 });
    expect(seen.most).toBe(2);
    expect(docs.map((d) => d.filename)).toEqual(['a.md', 'b.md', 'c.md', 'd.md', 'e.md', 'f.md']);
    expect(docs.every((d) => d.status === 'uploading')).toBe(true);
    // Stored in arrival order: the first two together, then each as a slot frees. (The order the writes start in: two
    // writes running at once may finish either way round.)
    expect(seen.order.slice(2).map((key) => docs.findIndex((d) => key.includes(d.id)))).toEqual([2, 3, 4, 5]);
  });

  it('are all stored at once when the cap is 0', async () => {
    const { seen } = await uploadSix({ concurrency: 0 });
    expect(seen.most).toBe(6);
  });
});

/** Niceness of each thread of this process (field 19 of /proc/<pid>/task/<tid>/stat). */
function threadNiceness(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(Number(tid), Number(fields[16]));
  }
  return out;
}

describe.runIf(process.platform === 'linux')('pool threads', () => {
  it('run at a lower priority than the thread serving requests, so a busy machine answers callers first', async () => {
    const before = threadNiceness();
    const pool = await createConversionPool({ threads: 1 });
    try {
      await pool.run({ bytes: new TextEncoder().encode('# A\n\nText.\n'), filename: 'a.md', documentId: 'd1' });
      const niced = [...threadNiceness()].filter(([tid, nice]) => !before.has(tid) && nice === BACKGROUND_THREAD_NICENESS);
      expect(niced.length).toBeGreaterThanOrEqual(1);
      expect(threadNiceness().get(process.pid)).toBe(before.get(process.pid));
    } finally {
      await pool.close();
    }
  });
});
