import { crc32, inflateRawSync } from 'node:zlib';
import { DossierError } from '@dossier/core/conversion';

/**
 * An in-memory ZIP reader for Office files (DOCX, PPTX, XLSX) that never trusts the archive.
 * Entry names are only keys in a map: nothing is written to disk, so `../../evil` is harmless.
 * Inflation goes through node:zlib with `maxOutputLength`, which stops the inflater as soon as
 * the output passes the cap (zlib.js checks after every 16 KiB chunk), so a bomb is refused while
 * inflating and never fully materialised, whatever sizes the headers declare.
 */

/** Caps applied to one archive. */
export interface ZipLimits {
  /** Most entries in the central directory. */
  readonly maxEntries: number;
  /** Most bytes one entry may inflate to. */
  readonly maxEntryBytes: number;
  /** Most bytes all entries read together may inflate to. */
  readonly maxTotalBytes: number;
  /** Highest inflated/compressed ratio for entries past `ratioGraceBytes`. */
  readonly maxRatio: number;
  /** Entries smaller than this once inflated are exempt from the ratio cap (tiny XML compresses well). */
  readonly ratioGraceBytes: number;
}

/**
 * Apache POI's ZipSecureFile refuses ratios above 100:1 (MIN_INFLATE_RATIO = 0.01) and the same
 * threshold holds for the Office files we evaluated (sheet XML ≈ 10–30:1). Sizes leave room for
 * large real workbooks while staying well under a worker's heap.
 */
export const DEFAULT_ZIP_LIMITS: ZipLimits = Object.freeze({
  maxEntries: 10_000,
  maxEntryBytes: 128 * 1024 * 1024,
  maxTotalBytes: 256 * 1024 * 1024,
  maxRatio: 100,
  ratioGraceBytes: 1024 * 1024,
});

/** One central-directory record. */
export interface ZipEntry {
  readonly name: string;
  readonly method: number;
  readonly flags: number;
  readonly crc: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly localOffset: number;
}

const SIG_EOCD = 0x06054b50;
const SIG_EOCD64_LOCATOR = 0x07064b50;
const SIG_EOCD64 = 0x06064b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_LOCAL = 0x04034b50;
const MIB = 1024 * 1024;

const fail = (what: string, cause?: unknown): DossierError => new DossierError('conversion_failed', what, cause === undefined ? {} : { cause });

const corrupt = (what: string): DossierError => fail(`The archive is truncated or corrupt: ${what}`);

/** A bounds-checked little-endian reader over the archive bytes. */
class Reader {
  private readonly view: DataView;
  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  private check(at: number, len: number): void {
    if (at < 0 || at + len > this.bytes.length) throw corrupt('a record points past the end of the file');
  }
  u16(at: number): number {
    this.check(at, 2);
    return this.view.getUint16(at, true);
  }
  u32(at: number): number {
    this.check(at, 4);
    return this.view.getUint32(at, true);
  }
  u64(at: number): number {
    this.check(at, 8);
    return Number(this.view.getBigUint64(at, true));
  }
  slice(at: number, len: number): Uint8Array {
    this.check(at, len);
    return this.bytes.subarray(at, at + len);
  }
}

/** Where the central directory is and how many entries it claims. */
function findDirectory(r: Reader): { count: number; offset: number; size: number } {
  const n = r.bytes.length;
  for (let at = n - 22; at >= Math.max(0, n - 22 - 0xffff); at--) {
    if (r.u32(at) !== SIG_EOCD) continue;
    const count = r.u16(at + 10);
    const size = r.u32(at + 12);
    const offset = r.u32(at + 16);
    if (count !== 0xffff && offset !== 0xffffffff && size !== 0xffffffff) return { count, offset, size };
    return findDirectory64(r, at);
  }
  throw corrupt('no end-of-central-directory record (the file may be cut short)');
}

function findDirectory64(r: Reader, eocdAt: number): { count: number; offset: number; size: number } {
  if (eocdAt < 20 || r.u32(eocdAt - 20) !== SIG_EOCD64_LOCATOR) throw corrupt('missing ZIP64 locator');
  const at = r.u64(eocdAt - 12);
  if (r.u32(at) !== SIG_EOCD64) throw corrupt('missing ZIP64 end-of-central-directory record');
  return { count: r.u64(at + 32), size: r.u64(at + 40), offset: r.u64(at + 48) };
}

/** Sizes and offset from a ZIP64 extra field, for the fields the record marked 0xFFFFFFFF. */
function zip64Fields(r: Reader, extraAt: number, extraLen: number, e: Omit<ZipEntry, 'name'>): Omit<ZipEntry, 'name'> {
  const out = { ...e };
  for (let at = extraAt; at + 4 <= extraAt + extraLen; ) {
    const id = r.u16(at);
    const len = r.u16(at + 2);
    if (id === 0x0001) {
      let p = at + 4;
      const next = (): number => {
        p += 8;
        return r.u64(p - 8);
      };
      if (e.size === 0xffffffff) out.size = next();
      if (e.compressedSize === 0xffffffff) out.compressedSize = next();
      if (e.localOffset === 0xffffffff) out.localOffset = next();
    }
    at += 4 + len;
  }
  return out;
}

const nameDecoder = new TextDecoder('utf-8');

/**
 * Every record of the central directory, walked by its byte size rather than its entry count: the
 * count is 16 bits, so 70,000 entries claim to be 4,464 and the rest would otherwise go unseen.
 */
function readEntries(r: Reader, limits: ZipLimits): ZipEntry[] {
  const dir = findDirectory(r);
  if (dir.count > limits.maxEntries) throw tooMany(dir.count, limits.maxEntries);
  const entries: ZipEntry[] = [];
  for (let at = dir.offset; at < dir.offset + dir.size; ) {
    if (entries.length >= limits.maxEntries) throw tooMany(entries.length + 1, limits.maxEntries);
    if (r.u32(at) !== SIG_CENTRAL) throw corrupt(`central directory record ${entries.length + 1} is damaged`);
    const nameLen = r.u16(at + 28);
    const extraLen = r.u16(at + 30);
    const base = {
      flags: r.u16(at + 8),
      method: r.u16(at + 10),
      crc: r.u32(at + 16),
      compressedSize: r.u32(at + 20),
      size: r.u32(at + 24),
      localOffset: r.u32(at + 42),
    };
    const fields = zip64Fields(r, at + 46 + nameLen, extraLen, base);
    entries.push({ name: nameDecoder.decode(r.slice(at + 46, nameLen)), ...fields });
    at += 46 + nameLen + extraLen + r.u16(at + 32);
  }
  if (entries.length % 0x10000 !== dir.count % 0x10000) throw corrupt('the central directory does not match its entry count');
  return entries;
}

const tooMany = (count: number, cap: number): DossierError =>
  fail(`The archive has ${count > cap ? `more than ${cap}` : count} entries; at most ${cap} are accepted (refusing a possible zip bomb)`);

/** Refuse what the headers already admit to, before any byte is inflated. */
function checkDeclared(entries: ZipEntry[], limits: ZipLimits): void {
  let total = 0;
  for (const e of entries) {
    if (e.flags & 1) throw new DossierError('unsupported_format', 'The archive is encrypted (password-protected); remove the password and upload it again');
    if (e.size > limits.maxEntryBytes) throw tooLarge(e.name, limits.maxEntryBytes);
    if (e.size > limits.ratioGraceBytes && e.size > e.compressedSize * limits.maxRatio) throw tooDense(e.name, limits.maxRatio);
    total += e.size;
  }
  if (total > limits.maxTotalBytes) throw tooLargeTotal(limits.maxTotalBytes);
}

const size = (n: number): string => (n >= MIB ? `${Math.round(n / MIB)} MiB` : `${Math.round(n / 1024)} KiB`);
const tooLarge = (name: string, cap: number): DossierError =>
  fail(`Archive entry ${JSON.stringify(name)} expands to more than ${size(cap)} (limit per entry); refusing a possible zip bomb`);
const tooLargeTotal = (cap: number): DossierError => fail(`The archive expands to more than ${size(cap)} in total; refusing a possible zip bomb`);
const tooDense = (name: string, ratio: number): DossierError =>
  fail(`Archive entry ${JSON.stringify(name)} has a compression ratio above ${ratio}:1; refusing a possible zip bomb`);

/** A validated archive whose entries are inflated on demand, with every cap enforced while inflating. */
export class ZipArchive {
  private readonly byName = new Map<string, ZipEntry>();
  private inflated = 0;

  private constructor(
    private readonly reader: Reader,
    entries: ZipEntry[],
    private readonly limits: ZipLimits,
  ) {
    for (const e of entries) if (!e.name.endsWith('/')) this.byName.set(e.name, e);
  }

  /** Parse the central directory; throws conversion_failed on a damaged, oversized or encrypted archive. */
  static open(bytes: Uint8Array, limits: ZipLimits = DEFAULT_ZIP_LIMITS): ZipArchive {
    const reader = new Reader(bytes);
    const entries = readEntries(reader, limits);
    checkDeclared(entries, limits);
    return new ZipArchive(reader, entries, limits);
  }

  /** File entry names in directory order. */
  names(): string[] {
    return [...this.byName.keys()];
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** The inflated bytes of an entry; throws not-found as conversion_failed naming the part. */
  read(name: string): Uint8Array {
    const e = this.byName.get(name);
    if (!e) throw fail(`The document is missing its part ${JSON.stringify(name)}`);
    const data = this.compressedData(e);
    const out = this.inflate(e, data);
    if (out.length !== e.size || crc32(out) !== e.crc) throw corrupt(`entry ${JSON.stringify(name)} fails its size or CRC check`);
    this.inflated += out.length;
    return out;
  }

  /** An entry decoded as text (UTF-8, or UTF-16 by BOM as XML allows). */
  text(name: string): string {
    const b = this.read(name);
    if (b[0] === 0xff && b[1] === 0xfe) return new TextDecoder('utf-16le').decode(b.subarray(2));
    if (b[0] === 0xfe && b[1] === 0xff) return new TextDecoder('utf-16be').decode(b.subarray(2));
    return new TextDecoder('utf-8').decode(b).replace(/^\uFEFF/, '');
  }

  private compressedData(e: ZipEntry): Uint8Array {
    const r = this.reader;
    if (r.u32(e.localOffset) !== SIG_LOCAL) throw corrupt(`the local header of ${JSON.stringify(e.name)} is damaged`);
    const start = e.localOffset + 30 + r.u16(e.localOffset + 26) + r.u16(e.localOffset + 28);
    return r.slice(start, e.compressedSize);
  }

  private inflate(e: ZipEntry, data: Uint8Array): Uint8Array {
    const { maxEntryBytes, maxTotalBytes, maxRatio, ratioGraceBytes } = this.limits;
    const remaining = maxTotalBytes - this.inflated;
    const byRatio = Math.max(ratioGraceBytes, data.length * maxRatio);
    const cap = Math.min(maxEntryBytes, remaining, byRatio);
    if (e.method === 0) {
      if (data.length > cap) throw cap === remaining ? tooLargeTotal(maxTotalBytes) : tooLarge(e.name, maxEntryBytes);
      return data;
    }
    if (e.method !== 8) throw fail(`Archive entry ${JSON.stringify(e.name)} uses unsupported compression method ${e.method}`);
    try {
      return new Uint8Array(inflateRawSync(data, { maxOutputLength: Math.max(1, cap) }));
    } catch (err) {
      if ((err as { code?: string }).code !== 'ERR_BUFFER_TOO_LARGE') throw corrupt(`entry ${JSON.stringify(e.name)} does not inflate`);
      if (cap === byRatio) throw tooDense(e.name, maxRatio);
      throw cap === remaining ? tooLargeTotal(maxTotalBytes) : tooLarge(e.name, maxEntryBytes);
    }
  }
}
