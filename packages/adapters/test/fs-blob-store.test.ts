import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blobStoreSuite, UNSAFE_BLOB_KEYS } from '@dossier/core/testing';
import { createFsBlobStore, SYNC_IO_MAX_BYTES, sizeOfFile } from '../src/fs/blob-store.ts';

const base = await mkdtemp(join(tmpdir(), 'dossier-blobs-'));
let n = 0;

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

blobStoreSuite('filesystem', async () => createFsBlobStore({ root: join(base, `store-${n++}`) }));

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
