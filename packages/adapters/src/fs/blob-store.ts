import { randomUUID } from 'node:crypto';
import { closeSync, type Dirent, fstatSync, fsync, open as openCallback, openSync, readSync, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { type BlobStat, type BlobStore, checkBlobKey, checkBlobPrefix, DossierError, invalid, notFound } from '@dossier/core';
import type { SmallObjects } from './small-objects.ts';

const fsyncFd = promisify(fsync);
const openFd = promisify(openCallback);

/**
 * Objects up to this size are read with synchronous calls, and written with synchronous calls for the bytes, the
 * close and the rename: on a local disk each is page-cache work of microseconds (measured here: 14 µs to read a small
 * file whole, 14 µs to rename), while each asynchronous call costs a turn on libuv's four-thread pool, where it waits
 * behind other uploads' fsyncs, and about 0.1 ms of dispatch on the event loop. Creating the temporary file (and its
 * folder) and the fsync stay on the pool: allocating an inode took 0.4–0.7 ms on this machine's ext4, too long to
 * hold the event loop for. Larger objects take the asynchronous path throughout, so a big file never holds it.
 */
export const SYNC_IO_MAX_BYTES = 64 * 1024;

/**
 * BlobStore on the local filesystem: key `a/b.pdf` is the file `<root>/a/b.pdf`. Writes go to a temp file in
 * the target folder and are renamed into place, so a reader sees the old object or the new one, never a mix.
 *
 * With `small`, an object of at most SYNC_IO_MAX_BYTES written without a flush (an upload's original, whose size is
 * recorded beside it and checked where it is read) is a row there instead of a file (see small-objects.ts): the same
 * durability, without the file-system calls. A row wins over a file at the same key, and every write removes the
 * other form of its key, so a key is held in one form at a time.
 */
export function createFsBlobStore(opts: { root: string; small?: SmallObjects }): BlobStore {
  const root = resolve(opts.root);
  const small = opts.small;
  const fileOf = (key: string): string => within(root, checkBlobKey(key));
  const dirOf = (prefix: string): string => within(root, checkBlobPrefix(prefix));
  const dirs = new KnownDirs();
  /** After a write of `key` as a file: the row it replaces goes (looked up first: most keys never had one, and a delete is a write to commit). */
  const dropRow = async (key: string) => {
    if (small && small.size(key) !== null) await small.delete(key);
  };
  // Every method is async so that a bad key is a rejected promise, never a synchronous throw.
  return {
    put: async (key, data, options) => {
      const file = fileOf(key);
      const flush = options?.flush ?? true;
      if (small && !flush && data.byteLength <= SYNC_IO_MAX_BYTES) {
        await small.put(key, data);
        return unlinkIfThere(file); // a file an earlier, larger version left
      }
      if (data.byteLength <= SYNC_IO_MAX_BYTES) await writeSmall(file, dirs, data, flush);
      else await writeAtomic(file, dirs, (fh) => fh.writeFile(data), flush);
      await dropRow(key);
    },
    putStream: async (key, source, maxBytes) => {
      const written = await putStream(fileOf(key), dirs, key, source, maxBytes);
      await dropRow(key);
      return written;
    },
    get: async (key) => {
      const file = fileOf(key);
      return small?.get(key) ?? readObject(file, key);
    },
    stat: async (key) => {
      const file = fileOf(key);
      const size = small?.size(key) ?? null;
      return size === null ? statObject(file) : { size };
    },
    move: async (fromKey, toKey) => {
      const [from, to] = [fileOf(fromKey), fileOf(toKey)];
      if (small && (await small.move(fromKey, toKey))) return unlinkIfThere(to);
      await moveObject(from, to, dirs, fromKey);
      if (from !== to) await dropRow(toKey);
    },
    delete: async (key) => {
      const file = fileOf(key);
      await dropRow(key);
      await deleteObject(file);
    },
    deletePrefix: async (prefix) => {
      const dir = dirOf(prefix);
      dirs.forget();
      await small?.deletePrefix(prefix);
      await rm(dir, { recursive: true, force: true });
    },
    sizeOfPrefix: async (prefix) => (await sizeOfDir(dirOf(prefix))) + (small?.sizeOfPrefix(prefix) ?? 0),
  };
}

/** Removes a file if there is one (a failed lookup is one quick call, made on the spot). */
function unlinkIfThere(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if (!isMissing(err)) throw err;
  }
}

/** Joins validated segments under root and checks, after resolution, that the path is still inside root. */
function within(root: string, segments: string[]): string {
  const full = resolve(root, ...segments);
  if (!full.startsWith(root + sep)) throw invalid(`blob key escapes the store: ${JSON.stringify(segments.join('/'))}`);
  return full;
}

/**
 * Folders this store created or found, so that a write into one skips its mkdir (a file-system call on the libuv
 * pool, two per ingested document). A folder removed behind the store's back is made again when a write finds it
 * missing.
 */
class KnownDirs {
  private readonly known = new Set<string>();

  /** Opens `file` for writing, creating its folder first unless it is known to exist. */
  create(file: string): Promise<FileHandle> {
    return this.createWith(file, (path) => open(path, 'wx', 0o600)); // stored files are the owner's only (issue 9)
  }

  /** As create(), as a plain file descriptor (for the synchronous writes of writeSmall). */
  createFd(file: string): Promise<number> {
    return this.createWith(file, (path) => openFd(path, 'wx', 0o600));
  }

  private async createWith<T>(file: string, openNew: (path: string) => Promise<T>): Promise<T> {
    const dir = dirname(file);
    if (this.known.has(dir)) {
      try {
        return await openNew(file);
      } catch (err) {
        if (!isMissing(err)) throw err;
        this.known.delete(dir);
      }
    }
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const opened = await openNew(file);
    this.known.add(dir);
    return opened;
  }

  /** Make a folder unless it is known to exist. */
  async ensure(dir: string): Promise<void> {
    if (this.known.has(dir)) return;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    this.known.add(dir);
  }

  /** Forget every folder (a prefix of them is being removed). */
  forget(): void {
    this.known.clear();
  }
}

/** Writes through `fill` into a temp file beside `file`, syncs it (unless not to `flush`), then renames it over `file`. */
async function writeAtomic<T>(file: string, dirs: KnownDirs, fill: (fh: FileHandle) => Promise<T>, flush = true): Promise<T> {
  // A sibling keeps the rename on one filesystem, hence atomic; the name stays short of NAME_MAX.
  const temp = join(dirname(file), `.tmp-${randomUUID()}`);
  const fh = await dirs.create(temp);
  try {
    const result = await fill(fh);
    if (flush) await fh.sync();
    await fh.close();
    await rename(temp, file);
    return result;
  } catch (err) {
    await fh.close().catch(() => {});
    await rm(temp, { force: true });
    throw err;
  }
}

/** writeAtomic for a small object (see SYNC_IO_MAX_BYTES): two calls on the pool (create, fsync), the rest synchronous. */
async function writeSmall(file: string, dirs: KnownDirs, data: Uint8Array, flush: boolean): Promise<void> {
  const temp = join(dirname(file), `.tmp-${randomUUID()}`);
  const fd = await dirs.createFd(temp);
  let open = true;
  try {
    for (let written = 0; written < data.byteLength; ) written += writeSync(fd, data, written);
    if (flush) await fsyncFd(fd);
    open = false;
    closeSync(fd);
    renameSync(temp, file);
  } catch (err) {
    if (open) closeSync(fd);
    rmSync(temp, { force: true });
    throw err;
  }
}

async function putStream(file: string, dirs: KnownDirs, key: string, source: AsyncIterable<Uint8Array>, maxBytes: number): Promise<number> {
  return writeAtomic(file, dirs, async (fh) => {
    let written = 0;
    for await (const chunk of source) {
      written += chunk.byteLength;
      if (written > maxBytes) {
        throw new DossierError('payload_too_large', `blob ${key} exceeds the limit of ${maxBytes} bytes`);
      }
      await fh.write(chunk);
    }
    return written;
  });
}

async function readObject(file: string, key: string): Promise<Uint8Array> {
  try {
    const small = readSmall(file);
    if (small) return small;
    const buf = await readFile(file);
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  } catch (err) {
    if (isMissing(err)) throw notFound(`blob ${key}`);
    throw err;
  }
}

/** The whole file when it holds at most SYNC_IO_MAX_BYTES, read with synchronous calls; null when it is larger. */
function readSmall(file: string): Uint8Array | null {
  const fd = openSync(file, 'r');
  try {
    const { size } = fstatSync(fd);
    if (size > SYNC_IO_MAX_BYTES) return null;
    // One byte more than the size: a file that grew since the fstat is read whole by the asynchronous path instead.
    const buf = new Uint8Array(size + 1);
    let read = 0;
    for (let n = -1; n !== 0 && read < buf.byteLength; read += n) n = readSync(fd, buf, read, buf.byteLength - read, null);
    return read > size ? null : buf.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

async function statObject(file: string): Promise<BlobStat | null> {
  try {
    const s = await stat(file);
    return s.isFile() ? { size: s.size } : null;
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
}

/** A rename (both keys are in this store, so on one filesystem: atomic), into a folder made first when needed. */
async function moveObject(from: string, to: string, dirs: KnownDirs, fromKey: string): Promise<void> {
  if (!(await statObject(from))) throw notFound(`blob ${fromKey}`);
  if (from === to) return;
  await dirs.ensure(dirname(to));
  try {
    await rename(from, to);
  } catch (err) {
    if (isMissing(err)) throw notFound(`blob ${fromKey}`);
    throw err;
  }
}

async function deleteObject(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (err) {
    if (!isMissing(err)) throw err;
  }
}

async function sizeOfDir(dir: string): Promise<number> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (isMissing(err)) return 0;
    throw err;
  }
  let total = 0;
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) total += await sizeOfDir(path);
    else if (e.isFile()) total += await sizeOfFile(path);
  }
  return total;
}

/**
 * A file's size, 0 when it vanished since the directory was listed (issue 11: an atomic write's temporary file
 * renamed away mid-walk made collection stats answer 500 during a bulk upload).
 */
export async function sizeOfFile(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (err) {
    if (isMissing(err)) return 0;
    throw err;
  }
}

/** ENOENT, or a path component that is a file (ENOTDIR), or a key naming a folder (EISDIR): no such object. */
function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
}
