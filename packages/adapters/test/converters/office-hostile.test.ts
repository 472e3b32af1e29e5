import { existsSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ZipArchive } from '../../src/converters/office/zip.ts';
import { convert, docxXml, failure, makeDocx, makePptx, makeXlsx, makeZip } from './office-helpers.ts';

/** Every hostile input must fail (or finish) well within this, so the worker stays responsive. */
const BOUND_MS = 10_000;

const BILLION_LAUGHS = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">${Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`).join('')}]>`;
const XXE = '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>';
const body = (inner: string): string =>
  `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>${inner}</w:t></w:r></w:p></w:body></w:document>`;

async function expectFailure(bytes: Uint8Array | string, filename: string, code: string, message: RegExp): Promise<void> {
  const f = await failure(bytes, filename);
  expect(f.code).toBe(code);
  expect(f.message).toMatch(message);
  expect(f.ms).toBeLessThan(BOUND_MS);
}

describe('the office converters on hostile input', () => {
  it('refuses a zip bomb by its compression ratio before inflating it', async () => {
    const bomb = makeDocx(docxXml('x'), [{ name: 'word/media/zeros.bin', data: Buffer.alloc(50 * 1024 * 1024) }]);
    await expectFailure(bomb, 'bomb.docx', 'conversion_failed', /"word\/media\/zeros\.bin" has a compression ratio above 100:1; refusing a possible zip bomb/);
  });

  it('stops inflating an entry whose headers lie about its size', async () => {
    const liar = makeDocx(docxXml('x'), [{ name: 'word/media/liar.bin', data: Buffer.alloc(200 * 1024 * 1024), declaredSize: 10 }]);
    await expectFailure(liar, 'liar.docx', 'conversion_failed', /"word\/media\/liar\.bin" has a compression ratio above 100:1/);
  });

  it('refuses an archive whose declared total or per-entry size passes the caps', () => {
    const parts = [1, 2, 3].map((i) => ({ name: `p${i}.bin`, data: Buffer.alloc(10), declaredSize: 400 * 1024 }));
    const limits = { maxEntries: 100, maxEntryBytes: 500 * 1024, maxTotalBytes: 1024 * 1024, maxRatio: 1e9, ratioGraceBytes: 1 };
    expect(() => ZipArchive.open(makeZip(parts), limits)).toThrow(/expands to more than 1 MiB in total/);
    expect(() => ZipArchive.open(makeZip(parts), { ...limits, maxEntryBytes: 100 * 1024 })).toThrow(
      /"p1\.bin" expands to more than 100 KiB \(limit per entry\)/,
    );
  });

  it('stops at the total cap while inflating, whatever the headers claim', () => {
    const random = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => Math.floor(Math.random() * 256)));
    const limits = { maxEntries: 10, maxEntryBytes: 1024 * 1024, maxTotalBytes: 1024 * 1024, maxRatio: 100, ratioGraceBytes: 1024 * 1024 };
    const parts = [
      { name: 'r1.bin', data: random(400 * 1024) },
      { name: 'r2.bin', data: random(400 * 1024) },
      { name: 'r3.bin', data: random(400 * 1024), declaredSize: 100 },
    ];
    const zip = ZipArchive.open(makeZip(parts), limits);
    zip.read('r1.bin');
    zip.read('r2.bin');
    expect(() => zip.read('r3.bin')).toThrow(/expands to more than 1 MiB in total; refusing a possible zip bomb/);
    const liar = ZipArchive.open(makeZip([parts[2]!]), limits);
    expect(() => liar.read('r3.bin')).toThrow(/entry "r3\.bin" fails its size or CRC check/);
  });

  it('refuses an archive with more entries than allowed, even when the 16-bit count wraps', async () => {
    const many = Array.from({ length: 70_000 }, (_, i) => ({ name: `word/e${i}`, data: '', stored: true }));
    await expectFailure(makeDocx(docxXml('x'), many), 'many.docx', 'conversion_failed', /more than 10000 entries; at most 10000 are accepted/);
  });

  it('refuses billion laughs in a DOCX, an XLSX and a PPTX without expanding entities', async () => {
    const msg = /declares a DOCTYPE, which Office parts never carry; refused as invalid \(entity expansion and external entities are not allowed\)/;
    await expectFailure(makeDocx(`${BILLION_LAUGHS}${body('&lol9;')}`), 'laughs.docx', 'conversion_failed', msg);
    const xlsx = makeXlsx([['S', '<row r="1"><c r="A1" t="inlineStr"><is><t>x</t></is></c></row>']], [`&lol9;`]);
    const laughsXlsx = makeZip([{ name: 'xl/workbook.xml', data: `${BILLION_LAUGHS}<workbook>&lol9;</workbook>` }]);
    await expectFailure(laughsXlsx, 'laughs.xlsx', 'conversion_failed', msg);
    await expectFailure(xlsx, 'undefined-entity.xlsx', 'conversion_failed', /"xl\/sharedStrings\.xml" is not well-formed XML/);
    const pptx = makePptx([{ title: 't', bullets: [] }], []);
    const laughsPptx = makeZip([{ name: 'ppt/presentation.xml', data: `${BILLION_LAUGHS}<p:presentation xmlns:p="urn:p">&lol9;</p:presentation>` }]);
    await expectFailure(laughsPptx, 'laughs.pptx', 'conversion_failed', msg);
    expect((await convert(pptx, 'ok.pptx')).markdown).toBe('## Slide 1: t\n');
  });

  it('refuses an external entity (XXE) without reading the file it names', async () => {
    await expectFailure(makeDocx(`${XXE}${body('&xxe;')}`), 'xxe.docx', 'conversion_failed', /"word\/document\.xml" declares a DOCTYPE/);
  });

  it('refuses element nesting deep enough to exhaust the stack', async () => {
    const deep = `${'<w:r>'.repeat(5000)}${'</w:r>'.repeat(5000)}`;
    await expectFailure(makeDocx(body(deep)), 'deep.docx', 'conversion_failed', /nests elements deeper than 400 levels/);
  });

  it('says a truncated Office file is truncated', async () => {
    const full = makeDocx(docxXml('hello world '.repeat(2000)));
    await expectFailure(full.subarray(0, 600), 'cut.docx', 'conversion_failed', /truncated or corrupt: no end-of-central-directory record/);
    await expectFailure(full.subarray(0, full.length - 30), 'cut2.docx', 'conversion_failed', /truncated or corrupt/);
  });

  it('says a corrupt deflate stream is corrupt', async () => {
    const good = makeZip([{ name: 'word/document.xml', data: docxXml('hello '.repeat(500)) }]);
    const rot = Buffer.from(good);
    for (let i = 60; i < 120; i++) rot[i] = 0xff;
    await expectFailure(
      rot,
      'rot.docx',
      'conversion_failed',
      /truncated or corrupt: entry "word\/document\.xml" (does not inflate|fails its size or CRC check)/,
    );
  });

  it('keeps traversal-style entry names inside memory and still converts the document', async () => {
    const evil = makeDocx(docxXml('hello'), [
      { name: '../../../../tmp/dossier-office-evil.txt', data: 'pwned' },
      { name: '/tmp/dossier-office-abs.txt', data: 'pwned' },
    ]);
    const r = await convert(evil, 'evil.docx');
    expect(r.markdown).toBe('hello\n');
    expect(existsSync('/tmp/dossier-office-evil.txt')).toBe(false);
    expect(existsSync('/tmp/dossier-office-abs.txt')).toBe(false);
  });

  it('resolves a relationship that climbs out of the package to a missing part, not a file', async () => {
    const rels =
      '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="../../../../etc/passwd"/></Relationships>';
    const pptx = makeZip([
      {
        name: 'ppt/presentation.xml',
        data: '<p:presentation xmlns:p="urn:p" xmlns:r="urn:r"><p:sldIdLst><p:sldId r:id="rId1"/></p:sldIdLst></p:presentation>',
      },
      { name: 'ppt/_rels/presentation.xml.rels', data: rels },
    ]);
    const r = await convert(pptx, 'escape.pptx');
    expect(r.markdown).toBe('\n');
  });

  it('refuses a password-protected zip entry and an encrypted OLE Office file', async () => {
    await expectFailure(
      makeDocx(docxXml('x'), [{ name: 'word/secret.xml', data: '<x/>', flags: 1 }]),
      's.docx',
      'unsupported_format',
      /encrypted \(password-protected\)/,
    );
    const ole = Buffer.alloc(2048);
    Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(ole);
    Buffer.from('EncryptionInfo', 'utf16le').copy(ole, 1024);
    await expectFailure(ole, 'locked.docx', 'unsupported_format', /encrypted or legacy binary Office format not supported/);
    await expectFailure(ole.subarray(0, 512), 'old.doc', 'unsupported_format', /legacy binary Office format not supported \(\.doc, \.xls, \.ppt, \.msg\)/);
  });

  it('goes by the bytes, not the name: a PNG named .docx and a zip named .csv are unsupported', async () => {
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(100)]);
    await expectFailure(
      png,
      'report.docx',
      'unsupported_format',
      /Unsupported file type image\/png \(detected from the file's contents\); supported: .*text\/csv/,
    );
    const zip = makeZip([{ name: 'a.bin', data: 'x' }]);
    await expectFailure(zip, 'data.csv', 'unsupported_format', /Unsupported file type application\/zip .*supported: .*wordprocessingml/);
  });

  it('reports invalid JSON and YAML with the parser position, and never expands YAML aliases', async () => {
    await expectFailure('{"a": [1, 2,, 3]}', 'bad.json', 'conversion_failed', /not valid JSON: .*position|not valid JSON/);
    await expectFailure('a: [1, 2\nb: }\n', 'bad.yaml', 'conversion_failed', /not valid YAML: /);
    const laughs = `a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n${Array.from(
      { length: 8 },
      (_, i) =>
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(97 + i)}`)
          .join(',')}]`,
    ).join('\n')}\n`;
    const t = performance.now();
    const r = await convert(laughs, 'laughs.yaml');
    expect(performance.now() - t).toBeLessThan(BOUND_MS);
    expect(r.markdown.length).toBeLessThan(5000);
  });

  it('handles a CSV with unbalanced quotes and a 100,000-column row', async () => {
    const quotes = await convert('a,b\n"unterminated,1\n2,3\n'.repeat(200), 'q.csv');
    expect(quotes.markdown).toMatch(/^\| a \| b \|/m);
    const wide = `${Array.from({ length: 100_000 }, (_, i) => `c${i}`).join(',')}\n${'1,'.repeat(99_999)}1\n`;
    const t = performance.now();
    const r = await convert(wide, 'wide.csv');
    expect(performance.now() - t).toBeLessThan(BOUND_MS);
    expect(r.markdown).toContain('| c99999 |');
  });

  it('gives an e-mail nested 1,000 MIME levels deep a bounded answer', async () => {
    const nested = `From: a@b.c\nTo: d@e.f\nSubject: nest\nMIME-Version: 1.0\n${Array.from({ length: 1000 }, (_, i) => `Content-Type: multipart/mixed; boundary="b${i}"\n\n--b${i}\n`).join('')}Content-Type: text/plain\n\nhello\n`;
    const t = performance.now();
    const outcome = await convert(nested, 'nested.eml').then(
      (r) => r.markdown,
      (e: Error & { code?: string }) => `${e.code}: ${e.message}`,
    );
    expect(performance.now() - t).toBeLessThan(BOUND_MS);
    expect(outcome).toBe('conversion_failed: The e-mail could not be read: Maximum MIME nesting depth of 256 levels exceeded');
  });

  it('flattens RST nested 300 levels deep instead of re-reading it at every level', async () => {
    const deep = Array.from({ length: 10_000 }, (_, i) => `${'   '.repeat(Math.min(i, 300))}.. note::`).join('\n');
    const t = performance.now();
    const r = await convert(deep, 'deep.rst');
    expect(performance.now() - t).toBeLessThan(BOUND_MS);
    expect(r.markdown.length).toBeLessThan(1_000_000);
  });

  it('builds a real compressed entry that inflates within its caps', () => {
    const xml = Buffer.from('<a>'.repeat(10) + 'x'.repeat(1000) + '</a>'.repeat(10));
    expect(deflateRawSync(xml).length).toBeLessThan(xml.length);
    const zip = ZipArchive.open(makeZip([{ name: 'a.xml', data: xml }]));
    expect(zip.text('a.xml')).toBe(xml.toString());
  });

  it('converts a CSV of a million short rows into header-repeating tables (no spread of every row into one call)', async () => {
    const rows = Array.from({ length: 1_000_000 }, (_, i) => `${i},${i % 977}`).join('\n');
    const started = performance.now();
    const { markdown } = await convert(`id,item\n${rows}\n`, 'rows.csv');
    expect(performance.now() - started).toBeLessThan(BOUND_MS * 3);
    expect(markdown).toContain('| 999999 | 528 |');
    expect(markdown.match(/^\| id \| item \|$/gm)).toHaveLength(5_000); // one header per part of 200 rows
  }, 60_000);
});
