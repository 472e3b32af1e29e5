import { crc32 } from 'node:zlib';

/** Signatures of the records a stored ZIP needs (PKWARE APPNOTE §4.3). */
const SIG_LOCAL = 0x04034b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_EOCD = 0x06054b50;

/** Write entries into an uncompressed ZIP (for handing validated parts to a library that unzips itself). */
export function storeZip(files: { name: string; data: Uint8Array }[]): Uint8Array {
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const f of files) {
    const name = new TextEncoder().encode(f.name);
    const crc = crc32(f.data);
    const local = header(30, SIG_LOCAL, name, [
      [4, 20],
      [6, 0x0800],
      [14, crc, 4],
      [18, f.data.length, 4],
      [22, f.data.length, 4],
      [26, name.length],
    ]);
    const central = header(46, SIG_CENTRAL, name, [
      [4, 20],
      [6, 20],
      [8, 0x0800],
      [16, crc, 4],
      [20, f.data.length, 4],
      [24, f.data.length, 4],
      [28, name.length],
      [42, offset, 4],
    ]);
    locals.push(local, f.data);
    centrals.push(central);
    offset += local.length + f.data.length;
  }
  const dirSize = centrals.reduce((n, c) => n + c.length, 0);
  const eocd = header(22, SIG_EOCD, new Uint8Array(), [
    [8, files.length],
    [10, files.length],
    [12, dirSize, 4],
    [16, offset, 4],
  ]);
  return Buffer.concat([...locals, ...centrals, eocd]);
}

/** A fixed header of `size` bytes with a signature, little-endian fields ([offset, value, width=2]) and a trailing name. */
function header(size: number, sig: number, name: Uint8Array, fields: [number, number, number?][]): Uint8Array {
  const out = new Uint8Array(size + name.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, sig, true);
  for (const [at, value, width = 2] of fields) {
    if (width === 4) v.setUint32(at, value >>> 0, true);
    else v.setUint16(at, value, true);
  }
  out.set(name, size);
  return out;
}
