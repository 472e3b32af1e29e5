import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blobStoreSuite, UNSAFE_BLOB_KEYS } from '@dossier/core/testing';
import { createFsBlobStore, SYNC_IO_MAX_BYTES, sizeOfFile } from '../src/fs/blob-store.ts';
import { openSmallObjects, type SmallObjects } from '../src/fs/small-objects.ts';

const base = await mkdtemp(join(tmpdir(), 'dossier-blobs-'));
let n = 0;

const opened: SmallObjects[] = [];
afterAll(async () => {
  for (const small of opened) await small.close();
  await rm(base, { recursive: true, force: true });
});

/** Small objects in an SQLite file beside the store's folder, as createDossier sets them up. */
function smallObjectsAt(file: string): SmallObjects {
  const small = openSmallObjects(file);
  opened.push(small);
  return small;
}

blobStoreSuite('filesystem', async () => createFsBlobStore({ root: join(base, `store-${n++}`) }));
blobStoreSuite('filesystem with small objects in SQLite', async () => {
  const name = `store-${n++}`;
  return createFsBlobStore({ root: join(base, name), small: smallObjectsAt(join(base, `${name}.db`)) });
});

/** Every file below dir, as paths relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

describe('filesystem BlobStore confinement', () => {
  it('never writes outside its root, whatever the key', async () => {
    const outer = await mkdtemp(join(base, 'outer-'));
    const store = createFsBlobStore({ root: join(outer, 'root') });
    const attempts = [...UNSAFE_BLOB_KEYS, 'a/../../../x', '../root-sibling/x', '..\\x'];
    for (const key of attempts) {
      await expect(store.put(key, new Uint8Array([1]))).rejects.toMatchObject({ code: 'invalid_input' });
      await expect(
        store.putStream(
          key,
          (async function* () {
            yield new Uint8Array([1]);
          })(),
          10,
        ),
      ).rejects.toMatchObject({ code: 'invalid_input' });
    }
    await store.put('%2e%2e/x', new Uint8Array([1]));
    expect(await filesUnder(outer)).toEqual([join('root', '%2e%2e', 'x')]);
  });

  it('stores key a/b.txt as the file <root>/a/b.txt and leaves no temp files behind', async () => {
    const root = join(base, 'layout');
    const store = createFsBlobStore({ root });
    await store.put('a/b.txt', new TextEncoder().encode('hi'));
    await expect(
      store.putStream(
        'a/c',
        (async function* () {
          yield new Uint8Array(100);
        })(),
        10,
      ),
    ).rejects.toMatchObject({ code: 'payload_too_large' });
    await expect(
      store.putStream(
        'a/d',
        (async function* () {
          yield new Uint8Array(1);
          throw new Error('boom');
        })(),
        10,
      ),
    ).rejects.toThrow('boom');
    expect(await filesUnder(root)).toEqual([join('a', 'b.txt')]);
  });

  it('writes into a folder removed behind its back, and after deletePrefix, by making the folder again', async () => {
    const root = join(base, 'removed');
    const store = createFsBlobStore({ root });
    await store.put('c/docs/one.md', new Uint8Array([1]));
    await rm(join(root, 'c'), { recursive: true }); // another process (or an operator) removed it
    await store.put('c/docs/two.md', new Uint8Array([2]));
    await store.deletePrefix('c/');
    await store.put('c/docs/three.md', new Uint8Array([3]));
    expect(await filesUnder(root)).toEqual([join('c', 'docs', 'three.md')]);
    expect(await store.get('c/docs/three.md')).toEqual(new Uint8Array([3]));
  });

  it('accepts a relative root and resolves it once', async () => {
    const store = createFsBlobStore({ root: join(base, 'rel', '..', 'rel2') });
    await store.put('x', new Uint8Array([7]));
    expect(await filesUnder(join(base, 'rel2'))).toEqual(['x']);
  });
});

describe('filesystem BlobStore sizes under writes', () => {
  it('counts a file that vanished after the listing as 0 bytes instead of failing (stats during a bulk upload)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dossier-size-'));
    expect(await sizeOfFile(join(dir, 'renamed-away.tmp'))).toBe(0);
    const store = createFsBlobStore({ root: dir });
    await store.put('c/one.bin', new Uint8Array(5));
    expect(await store.sizeOfPrefix('c/')).toBe(5);
    await rm(dir, { recursive: true, force: true });
  });
});

describe('filesystem BlobStore small and large objects', () => {
  /** Bytes whose every position differs from its neighbours', so a shifted or truncated read shows. */
  const pattern = (size: number) => Uint8Array.from({ length: size }, (_, i) => (i * 31 + 7) % 251);

  it('round-trips objects on both sides of the synchronous-I/O limit, byte for byte, as owner-only files', async () => {
    const root = join(base, 'sizes');
    const store = createFsBlobStore({ root });
    for (const size of [0, 1, SYNC_IO_MAX_BYTES - 1, SYNC_IO_MAX_BYTES, SYNC_IO_MAX_BYTES + 1, 3 * SYNC_IO_MAX_BYTES + 5]) {
      const key = `p/c/${size}.bin`;
      await store.put(key, pattern(size));
      expect(await store.get(key), `size ${size}`).toEqual(pattern(size));
      expect(await store.stat(key)).toEqual({ size });
      expect((await stat(join(root, 'p', 'c', `${size}.bin`))).mode & 0o777).toBe(0o600);
    }
    expect((await filesUnder(root)).every((f) => !f.includes('.tmp-'))).toBe(true);
  });

  it('replaces an object whole, small over large and large over small', async () => {
    const store = createFsBlobStore({ root: join(base, 'replace') });
    await store.put('k', pattern(SYNC_IO_MAX_BYTES * 2));
    await store.put('k', pattern(3));
    expect(await store.get('k')).toEqual(pattern(3));
    await store.put('k', pattern(SYNC_IO_MAX_BYTES * 2));
    expect(await store.get('k')).toEqual(pattern(SYNC_IO_MAX_BYTES * 2));
  });

  it('reads a file written by someone else, small or large, and answers not_found for a missing key or a folder', async () => {
    const root = join(base, 'foreign');
    const store = createFsBlobStore({ root });
    await mkdir(join(root, 'dir', 'inner'), { recursive: true });
    await writeFile(join(root, 'dir', 'small'), pattern(10));
    await writeFile(join(root, 'dir', 'large'), pattern(SYNC_IO_MAX_BYTES + 10));
    expect(await store.get('dir/small')).toEqual(pattern(10));
    expect(await store.get('dir/large')).toEqual(pattern(SYNC_IO_MAX_BYTES + 10));
    await expect(store.get('dir/none')).rejects.toMatchObject({ code: 'not_found' });
    await expect(store.get('dir/inner')).rejects.toMatchObject({ code: 'not_found' });
    await expect(store.get('dir/small/below')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('writes small objects concurrently into one folder without losing any', async () => {
    const store = createFsBlobStore({ root: join(base, 'concurrent') });
    const keys = Array.from({ length: 200 }, (_, i) => `c/d${i % 7}/o${i}`);
    await Promise.all(keys.map((key, i) => store.put(key, pattern(i + 1))));
    for (const [i, key] of keys.entries()) expect(await store.get(key)).toEqual(pattern(i + 1));
  });
});

describe('filesystem BlobStore with small objects in SQLite', () => {
  const pattern = (size: number) => Uint8Array.from({ length: size }, (_, i) => (i * 31 + 7) % 251);
  const unflushed = { flush: false };

  it('keeps a small unflushed object as a row (no file), and a flushed or large one as a file', async () => {
    const root = join(base, 'rows');
    const store = createFsBlobStore({ root, small: smallObjectsAt(join(base, 'rows.db')) });
    await store.put('c/d1/original.md', pattern(1500), unflushed);
    await store.put('c/d1/markdown.md', pattern(1500)); // a flush asked for: a file, synced
    await store.put('c/d2/original.pdf', pattern(SYNC_IO_MAX_BYTES + 1), unflushed);
    expect(await filesUnder(root)).toEqual([join('c', 'd1', 'markdown.md'), join('c', 'd2', 'original.pdf')]);
    expect(await store.get('c/d1/original.md')).toEqual(pattern(1500));
    expect(await store.stat('c/d1/original.md')).toEqual({ size: 1500 });
    expect(await store.sizeOfPrefix('c/')).toBe(1500 + 1500 + SYNC_IO_MAX_BYTES + 1);
    expect(await store.sizeOfPrefix('c/d1/')).toBe(3000);
  });

  it('holds a key in one form at a time when a row replaces a file and a file replaces a row', async () => {
    const root = join(base, 'forms');
    const store = createFsBlobStore({ root, small: smallObjectsAt(join(base, 'forms.db')) });
    await store.put('k/o', pattern(SYNC_IO_MAX_BYTES * 2), unflushed);
    await store.put('k/o', pattern(3), unflushed);
    expect(await filesUnder(root)).toEqual([]);
    expect([await store.get('k/o'), await store.sizeOfPrefix('k/')]).toEqual([pattern(3), 3]);
    await store.put('k/o', pattern(SYNC_IO_MAX_BYTES * 2));
    expect([await store.get('k/o'), await store.sizeOfPrefix('k/')]).toEqual([pattern(SYNC_IO_MAX_BYTES * 2), SYNC_IO_MAX_BYTES * 2]);
    await store.put('k/o', pattern(5), unflushed);
    await store.putStream(
      'k/o',
      (async function* () {
        yield pattern(7);
      })(),
      100,
    );
    expect([await store.get('k/o'), await store.stat('k/o')]).toEqual([pattern(7), { size: 7 }]);
    await store.delete('k/o');
    expect(await store.stat('k/o')).toBeNull();
  });

  it('moves a row over a file, keeps rows apart by prefix, and deletes a prefix in both forms', async () => {
    const root = join(base, 'moves');
    const store = createFsBlobStore({ root, small: smallObjectsAt(join(base, 'moves.db')) });
    await store.put('p/a/upload', pattern(4), unflushed);
    await store.put('p/a/original', pattern(SYNC_IO_MAX_BYTES * 2)); // an older, larger original
    await store.move('p/a/upload', 'p/a/original');
    expect(await store.get('p/a/original')).toEqual(pattern(4));
    expect(await store.stat('p/a/upload')).toBeNull();
    expect(await filesUnder(root)).toEqual([]);
    // Keys that share a beginning but not the folder: p/a/ must not reach p/a0 or p/a-b.
    await store.put('p/a0/x', pattern(2), unflushed);
    await store.put('p/a-b/x', pattern(2), unflushed);
    await store.put('p/a/big', pattern(SYNC_IO_MAX_BYTES * 2));
    await store.deletePrefix('p/a/');
    expect([await store.stat('p/a/original'), await store.stat('p/a/big')]).toEqual([null, null]);
    expect([await store.stat('p/a0/x'), await store.stat('p/a-b/x')]).toEqual([{ size: 2 }, { size: 2 }]);
    await expect(store.move('p/none', 'p/else')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('keeps its rows across closing and opening the file again', async () => {
    const file = join(base, 'reopen.db');
    const first = openSmallObjects(file);
    await createFsBlobStore({ root: join(base, 'reopen'), small: first }).put('r/o', pattern(9), unflushed);
    await first.close();
    const again = smallObjectsAt(file);
    expect(await createFsBlobStore({ root: join(base, 'reopen'), small: again }).get('r/o')).toEqual(pattern(9));
  });
});
