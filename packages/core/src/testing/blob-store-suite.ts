import { beforeEach, describe, expect, it } from 'vitest';
import { BLOB_STORE_SPEC_VERSION } from '../ports/blob-store.ts';
import type { BlobStore } from '../ports/blob-store.ts';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array): string => new TextDecoder().decode(b);

async function* chunks(...parts: string[]): AsyncIterable<Uint8Array> {
  for (const p of parts) yield bytes(p);
}

async function* failingAfter(part: string): AsyncIterable<Uint8Array> {
  yield bytes(part);
  throw new Error('source broke');
}

/** Keys that would leave the store, or are malformed; every method must refuse them with invalid_input. */
export const UNSAFE_BLOB_KEYS = ['../x', 'a/../../x', '/etc/passwd', 'a\\b', 'a\0b', '', 'a//b', 'a/', './a', 'a/./b', '..'];

/**
 * Conformance suite for BlobStore adapters. `factory` must return an empty store, fresh for every test.
 */
export function blobStoreSuite(name: string, factory: () => Promise<BlobStore>): void {
  describe(`BlobStore conformance (spec ${BLOB_STORE_SPEC_VERSION}): ${name}`, () => {
    let store: BlobStore;
    beforeEach(async () => {
      store = await factory();
    });

    objectTests(() => store);
    keySafetyTests(() => store);
    prefixTests(() => store);
    streamTests(() => store);
    moveTests(() => store);
  });
}

function objectTests(get: () => BlobStore): void {
  it('returns the bytes that were put, and their size', async () => {
    await get().put('docs/a.txt', bytes('hello'));
    expect(text(await get().get('docs/a.txt'))).toBe('hello');
    expect(await get().stat('docs/a.txt')).toEqual({ size: 5 });
  });

  it('returns an object put without a flush to the disk at once, whole, and replaces one the same way', async () => {
    const large = new Uint8Array(300 * 1024).fill(7);
    await get().put('docs/unflushed.bin', large, { flush: false });
    expect(await get().get('docs/unflushed.bin')).toEqual(large);
    await get().put('docs/unflushed.bin', bytes('small'), { flush: false });
    expect(text(await get().get('docs/unflushed.bin'))).toBe('small');
  });

  it('stores binary data byte for byte, including empty objects', async () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    await get().put('bin', all);
    await get().put('empty', new Uint8Array());
    expect(Array.from(await get().get('bin'))).toEqual(Array.from(all));
    expect((await get().get('empty')).byteLength).toBe(0);
  });

  it('replaces an object on overwrite', async () => {
    await get().put('k', bytes('a longer first version'));
    await get().put('k', bytes('short'));
    expect(text(await get().get('k'))).toBe('short');
    expect(await get().stat('k')).toEqual({ size: 5 });
  });

  it('throws not_found when getting a missing object', async () => {
    await expect(get().get('missing/x')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('reports null for a missing object and for a folder-like key', async () => {
    await get().put('dir/file', bytes('x'));
    expect(await get().stat('nope')).toBeNull();
    expect(await get().stat('dir')).toBeNull();
  });

  it('deletes an object and ignores deleting a missing one', async () => {
    await get().put('gone', bytes('x'));
    await get().delete('gone');
    await get().delete('gone');
    await get().delete('never/was');
    expect(await get().stat('gone')).toBeNull();
  });

  it('keeps the last of concurrent writes to one key whole', async () => {
    const versions = ['a'.repeat(10_000), 'b'.repeat(20_000), 'c'.repeat(5_000)];
    await Promise.all(versions.map((v) => get().put('race', bytes(v))));
    expect(versions).toContain(text(await get().get('race')));
  });
}

function keySafetyTests(get: () => BlobStore): void {
  it.each(UNSAFE_BLOB_KEYS)('rejects the unsafe key %j with invalid_input on every method', async (key) => {
    const s = get();
    const err = { code: 'invalid_input' };
    await expect(s.put(key, bytes('x'))).rejects.toMatchObject(err);
    await expect(s.putStream(key, chunks('x'), 10)).rejects.toMatchObject(err);
    await expect(s.get(key)).rejects.toMatchObject(err);
    await expect(s.stat(key)).rejects.toMatchObject(err);
    await expect(s.delete(key)).rejects.toMatchObject(err);
    await expect(s.move(key, 'safe')).rejects.toMatchObject(err);
    await expect(s.move('safe', key)).rejects.toMatchObject(err);
  });

  it.each(['../', '/', '/etc/', 'a/../../', 'a\\b/', '', 'no-slash'])('rejects the unsafe prefix %j', async (prefix) => {
    await expect(get().deletePrefix(prefix)).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(get().sizeOfPrefix(prefix)).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('treats percent-encoded dots as a literal name inside the store', async () => {
    await get().put('%2e%2e/x', bytes('inside'));
    expect(text(await get().get('%2e%2e/x'))).toBe('inside');
    expect(await get().sizeOfPrefix('%2e%2e/')).toBe(6);
    await expect(get().get('../x')).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('accepts keys with dots, spaces and unicode that stay inside', async () => {
    for (const key of ['..a', 'a..', 'a/...', 'dir/file name.v2.tar.gz', 'réunion/文書.md']) {
      await get().put(key, bytes(key));
      expect(text(await get().get(key))).toBe(key);
    }
  });
}

function prefixTests(get: () => BlobStore): void {
  it('deletes everything under a prefix and nothing else', async () => {
    for (const k of ['p/a', 'p/sub/b', 'pq/c', 'other', 'x/p/d']) await get().put(k, bytes(k));
    await get().deletePrefix('p/');
    expect(await get().stat('p/a')).toBeNull();
    expect(await get().stat('p/sub/b')).toBeNull();
    for (const k of ['pq/c', 'other', 'x/p/d']) expect(text(await get().get(k))).toBe(k);
  });

  it('ignores deleting a prefix with no objects', async () => {
    await get().deletePrefix('nothing/here/');
    expect(await get().sizeOfPrefix('nothing/')).toBe(0);
  });

  it('sums the sizes of every object under a prefix, nested ones included', async () => {
    await get().put('s/a', bytes('12345'));
    await get().put('s/deep/er/b', bytes('123'));
    await get().put('sibling/c', bytes('1234567'));
    expect(await get().sizeOfPrefix('s/')).toBe(8);
    expect(await get().sizeOfPrefix('s/deep/')).toBe(3);
    expect(await get().sizeOfPrefix('empty/')).toBe(0);
  });
}

function streamTests(get: () => BlobStore): void {
  it('streams chunks into one object and returns the bytes written', async () => {
    expect(await get().putStream('up/s', chunks('ab', 'cd', '', 'e'), 100)).toBe(5);
    expect(text(await get().get('up/s'))).toBe('abcde');
  });

  it('accepts a stream of exactly maxBytes', async () => {
    expect(await get().putStream('exact', chunks('12', '34'), 4)).toBe(4);
    expect(await get().stat('exact')).toEqual({ size: 4 });
  });

  it('rejects a stream over maxBytes with payload_too_large and stores nothing', async () => {
    await expect(get().putStream('big', chunks('1234', '5678', '9'), 8)).rejects.toMatchObject({ code: 'payload_too_large' });
    expect(await get().stat('big')).toBeNull();
  });

  it('leaves the previous object untouched when an overwriting stream is too large', async () => {
    await get().put('keep', bytes('original'));
    await expect(get().putStream('keep', chunks('x'.repeat(50)), 10)).rejects.toMatchObject({ code: 'payload_too_large' });
    expect(text(await get().get('keep'))).toBe('original');
  });

  it('stores nothing when the source stream fails', async () => {
    await expect(get().putStream('broken/x', failingAfter('part'), 100)).rejects.toThrow('source broke');
    expect(await get().stat('broken/x')).toBeNull();
    expect(await get().sizeOfPrefix('broken/')).toBe(0);
  });
}

function moveTests(get: () => BlobStore): void {
  it('moves an object to a key in another folder, replacing what was there, and the old key is gone', async () => {
    await get().put('from/a/upload', bytes('new content'));
    await get().put('to/b/original', bytes('old content, longer'));
    await get().move('from/a/upload', 'to/b/original');
    expect(text(await get().get('to/b/original'))).toBe('new content');
    expect(await get().stat('from/a/upload')).toBeNull();
    await get().move('to/b/original', 'fresh/folder/x');
    expect(await get().stat('fresh/folder/x')).toEqual({ size: 11 });
  });

  it('throws not_found when moving a missing object, and leaves the target as it was', async () => {
    await get().put('kept', bytes('kept'));
    await expect(get().move('missing/x', 'kept')).rejects.toMatchObject({ code: 'not_found' });
    expect(text(await get().get('kept'))).toBe('kept');
  });
}
