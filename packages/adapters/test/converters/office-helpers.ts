import { crc32, deflateRawSync } from 'node:zlib';
import { ConverterRegistry, type ConvertResult, defaultConverters } from '@dossier/core';
import { officeConverters } from '../../src/converters/office/index.ts';

/** One entry of a hand-made zip; sizes and flags may lie, as a hostile archive's would. */
export interface Entry {
  name: string;
  data: Uint8Array | string;
  declaredSize?: number;
  stored?: boolean;
  flags?: number;
}

const u16 = (n: number): Buffer => Buffer.from([n & 0xff, (n >>> 8) & 0xff]);
const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};

/** A zip written byte by byte, so tests can craft what no well-behaved library writes. */
export function makeZip(entries: Entry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const raw = Buffer.from(e.data);
    const body = e.stored ? raw : deflateRawSync(raw);
    const name = Buffer.from(e.name);
    const common = [
      u16(20),
      u16(e.flags ?? 0x800),
      u16(e.stored ? 0 : 8),
      u16(0),
      u16(0x21),
      u32(crc32(raw)),
      u32(body.length),
      u32(e.declaredSize ?? raw.length),
      u16(name.length),
      u16(0),
    ];
    const local = Buffer.concat([u32(0x04034b50), ...common, name, body]);
    centrals.push(Buffer.concat([u32(0x02014b50), u16(20), ...common, u16(0), u16(0), u16(0), u32(0), u32(offset), name]));
    locals.push(local);
    offset += local.length;
  }
  const cd = Buffer.concat(centrals);
  const n = entries.length & 0xffff;
  return Buffer.concat([...locals, cd, u32(0x06054b50), u16(0), u16(0), u16(n), u16(n), u32(cd.length), u32(offset), u16(0)]);
}

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const R = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
const A = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"';
const P = 'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const rels = (items: [string, string, string][]): string =>
  `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${items
    .map(([id, type, target]) => `<Relationship Id="${id}" Type="${REL}/${type}" Target="${target}"/>`)
    .join('')}</Relationships>`;

/** A document.xml body with one paragraph per text. */
export const docxXml = (...paragraphs: string[]): string =>
  `<?xml version="1.0"?><w:document ${W} ${R}><w:body>${paragraphs.map((t) => `<w:p><w:r><w:t>${t}</w:t></w:r></w:p>`).join('')}</w:body></w:document>`;

/** A minimal DOCX whose main part is `documentXml`, plus extra entries. */
export const makeDocx = (documentXml: string, extra: Entry[] = []): Buffer =>
  makeZip([
    {
      name: '[Content_Types].xml',
      data: '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    },
    { name: '_rels/.rels', data: rels([['rId1', 'officeDocument', 'word/document.xml']]) },
    { name: 'word/document.xml', data: documentXml },
    ...extra,
  ]);

/** A slide with a title, bullet body paragraphs and (optionally) speaker notes. */
export interface SlideSpec {
  title: string;
  bullets: string[];
  notes?: string;
}

const sp = (ph: string, paragraphs: string[], y: number): string =>
  `<p:sp><p:nvSpPr><p:cNvPr id="2" name="s"/><p:cNvSpPr/><p:nvPr>${ph}</p:nvPr></p:nvSpPr><p:spPr><a:xfrm><a:off x="0" y="${y}"/><a:ext cx="10" cy="10"/></a:xfrm></p:spPr><p:txBody><a:bodyPr/>${paragraphs
    .map((t) => `<a:p><a:r><a:t>${t}</a:t></a:r></a:p>`)
    .join('')}</p:txBody></p:sp>`;

/** A minimal PPTX: presentation, slides in order, optional notes pages. Extra entries may be added. */
export function makePptx(slides: SlideSpec[], extra: Entry[] = []): Buffer {
  const entries: Entry[] = [
    { name: '[Content_Types].xml', data: '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>' },
    { name: '_rels/.rels', data: rels([['rId1', 'officeDocument', 'ppt/presentation.xml']]) },
    {
      name: 'ppt/presentation.xml',
      data: `<?xml version="1.0"?><p:presentation ${P} ${R}><p:sldIdLst>${slides.map((_, i) => `<p:sldId id="${256 + i}" r:id="rId${i + 1}"/>`).join('')}</p:sldIdLst></p:presentation>`,
    },
    { name: 'ppt/_rels/presentation.xml.rels', data: rels(slides.map((_, i) => [`rId${i + 1}`, 'slide', `slides/slide${i + 1}.xml`])) },
  ];
  slides.forEach((s, i) => {
    const tree = `${sp('<p:ph type="title"/>', [s.title], 0)}${sp('<p:ph idx="1"/>', s.bullets, 100)}`;
    entries.push({
      name: `ppt/slides/slide${i + 1}.xml`,
      data: `<?xml version="1.0"?><p:sld ${A} ${P} ${R}><p:cSld><p:spTree>${tree}</p:spTree></p:cSld></p:sld>`,
    });
    if (!s.notes) return;
    entries.push({ name: `ppt/slides/_rels/slide${i + 1}.xml.rels`, data: rels([['rId9', 'notesSlide', `../notesSlides/notesSlide${i + 1}.xml`]]) });
    entries.push({
      name: `ppt/notesSlides/notesSlide${i + 1}.xml`,
      data: `<?xml version="1.0"?><p:notes ${A} ${P}><p:cSld><p:spTree>${sp('<p:ph type="body" idx="1"/>', [s.notes], 0)}</p:spTree></p:cSld></p:notes>`,
    });
  });
  return makeZip([...entries, ...extra]);
}

/** A minimal XLSX with one sheet per [name, sheetXml], shared strings and styles. */
export function makeXlsx(sheets: [string, string][], sharedStrings: string[] = [], stylesXml?: string): Buffer {
  const S = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
  const sheetRels: [string, string, string][] = sheets.map((_, i) => [`rId${i + 1}`, 'worksheet', `worksheets/sheet${i + 1}.xml`]);
  sheetRels.push(['rIdS', 'sharedStrings', 'sharedStrings.xml'], ['rIdT', 'styles', 'styles.xml']);
  return makeZip([
    { name: '[Content_Types].xml', data: '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>' },
    { name: '_rels/.rels', data: rels([['rId1', 'officeDocument', 'xl/workbook.xml']]) },
    {
      name: 'xl/workbook.xml',
      data: `<?xml version="1.0"?><workbook ${S} ${R}><sheets>${sheets.map(([n], i) => `<sheet name="${n}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('')}</sheets></workbook>`,
    },
    { name: 'xl/_rels/workbook.xml.rels', data: rels(sheetRels) },
    { name: 'xl/sharedStrings.xml', data: `<?xml version="1.0"?><sst ${S}>${sharedStrings.map((s) => `<si>${s}</si>`).join('')}</sst>` },
    { name: 'xl/styles.xml', data: stylesXml ?? `<?xml version="1.0"?><styleSheet ${S}><cellXfs><xf numFmtId="0"/><xf numFmtId="14"/></cellXfs></styleSheet>` },
    ...sheets.map(([, xml], i) => ({
      name: `xl/worksheets/sheet${i + 1}.xml`,
      data: `<?xml version="1.0"?><worksheet ${S}><sheetData>${xml}</sheetData></worksheet>`,
    })),
  ]);
}

const registry = new ConverterRegistry([...defaultConverters(), ...officeConverters()]);

/** Detect and convert as the worker does. */
export const convert = (bytes: Uint8Array | string, filename: string): Promise<ConvertResult & { detectedType: string }> =>
  registry.convert(typeof bytes === 'string' ? Buffer.from(bytes) : bytes, filename);

/** The DossierError a conversion throws, with how long it took to fail. */
export async function failure(bytes: Uint8Array | string, filename: string): Promise<{ code: string; message: string; ms: number }> {
  const t = performance.now();
  try {
    await convert(bytes, filename);
  } catch (err) {
    const e = err as { code?: string; message: string };
    return { code: e.code ?? 'none', message: e.message, ms: performance.now() - t };
  }
  throw new Error(`${filename} converted without error`);
}
