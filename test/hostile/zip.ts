import { crc32, deflateRawSync } from 'node:zlib';

/** One entry of a crafted zip: name and content, optionally lying about its uncompressed size. */
export interface ZipEntry {
  name: string;
  data: Uint8Array | string;
  /** Write this uncompressed size in the headers instead of the real one (size-spoofing bombs). */
  declaredSize?: number;
}

const u16 = (n: number) => Buffer.from([n & 0xff, (n >>> 8) & 0xff]);
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};

/** A deflate zip built by hand, so tests can craft archives no well-behaved library would write. */
export function makeZip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const raw = typeof e.data === 'string' ? Buffer.from(e.data) : Buffer.from(e.data);
    const comp = deflateRawSync(raw, { level: 9 });
    const name = Buffer.from(e.name);
    const size = e.declaredSize ?? raw.length;
    const common = [u16(20), u16(0), u16(8), u16(0), u16(0x21), u32(crc32(raw)), u32(comp.length), u32(size), u16(name.length), u16(0)];
    const local = Buffer.concat([u32(0x04034b50), ...common, name, comp]);
    centrals.push(Buffer.concat([u32(0x02014b50), u16(20), ...common, u16(0), u16(0), u16(0), u32(0), u32(offset), name]));
    locals.push(local);
    offset += local.length;
  }
  const cd = Buffer.concat(centrals);
  const eocd = Buffer.concat([u32(0x06054b50), u16(0), u16(0), u16(entries.length & 0xffff), u16(entries.length & 0xffff), u32(cd.length), u32(offset), u16(0)]);
  return Buffer.concat([...locals, cd, eocd]);
}

/** The minimum parts of an OOXML package of the given kind, with `main` as its main XML part. */
export function ooxml(kind: 'docx' | 'xlsx' | 'pptx', main: string, extra: ZipEntry[] = []): Buffer {
  const mainPath = { docx: 'word/document.xml', xlsx: 'xl/workbook.xml', pptx: 'ppt/presentation.xml' }[kind];
  const types = `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/${mainPath}" ContentType="application/xml"/></Types>`;
  const rels = `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="${mainPath}"/></Relationships>`;
  return makeZip([{ name: '[Content_Types].xml', data: types }, { name: '_rels/.rels', data: rels }, { name: mainPath, data: main }, ...extra]);
}
