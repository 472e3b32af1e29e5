import { describe, expect, it } from 'vitest';
import { consistentDelimiter, looksLikeEmail, sniffType, zipEntryNames } from '../src/ingest/converters/sniff.ts';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** A stored (uncompressed) zip with the given entry names; CRCs are irrelevant to sniffing. */
function zipOf(names: string[]): Buffer {
  const u16 = (n: number) => Buffer.from([n & 0xff, n >>> 8]);
  const u32 = (n: number) => Buffer.from([n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24]);
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const name of names) {
    const n = Buffer.from(name);
    const data = Buffer.from('<x/>');
    const common = [u16(20), u16(0), u16(0), u16(0), u16(0), u32(0), u32(data.length), u32(data.length), u16(n.length), u16(0)];
    const local = Buffer.concat([u32(0x04034b50), ...common, n, data]);
    centrals.push(Buffer.concat([u32(0x02014b50), u16(20), ...common, u16(0), u16(0), u16(0), u32(0), u32(offset), n]));
    locals.push(local);
    offset += local.length;
  }
  const cd = Buffer.concat(centrals);
  return Buffer.concat([...locals, cd, u32(0x06054b50), u16(0), u16(0), u16(names.length), u16(names.length), u32(cd.length), u32(offset), u16(0)]);
}

const text = (s: string): Buffer => Buffer.from(s);

describe('sniffType for Office packages', () => {
  it('tells DOCX, PPTX and XLSX apart by their parts, whatever the name says', () => {
    expect(sniffType(zipOf(['[Content_Types].xml', '_rels/.rels', 'word/document.xml']), 'x.bin')).toBe(DOCX);
    expect(sniffType(zipOf(['[Content_Types].xml', 'ppt/presentation.xml', 'ppt/slides/slide1.xml']), 'x.docx')).toBe(PPTX);
    expect(sniffType(zipOf(['[Content_Types].xml', 'xl/workbook.xml']), 'x.pptx')).toBe(XLSX);
  });

  it('keeps an unknown zip application/zip, even when named like an Office file or a CSV', () => {
    expect(sniffType(zipOf(['a.txt', 'b/c.png']), 'report.docx')).toBe('application/zip');
    expect(sniffType(zipOf(['a.txt']), 'data.csv')).toBe('application/zip');
  });

  it('reads entry names from local headers when the directory is cut off', () => {
    const cut = zipOf(['[Content_Types].xml', 'word/document.xml', 'word/styles.xml']).subarray(0, 120);
    expect(zipEntryNames(cut)).toEqual({ names: ['[Content_Types].xml', 'word/document.xml'], complete: false });
    expect(sniffType(cut, 'a.bin')).toBe(DOCX);
  });

  it('lets the extension pick the Office kind only for a cut-off package that shows no kind-specific part', () => {
    const cut = zipOf(['[Content_Types].xml', 'word/document.xml']).subarray(0, 60);
    expect(sniffType(cut, 'deck.pptx')).toBe(PPTX);
    expect(sniffType(cut, 'archive.zip')).toBe('application/zip');
  });

  it('reports OLE compound files (encrypted or legacy Office) as such', () => {
    const ole = Buffer.concat([Buffer.from('d0cf11e0a1b11ae1', 'hex'), Buffer.alloc(504)]);
    expect(sniffType(ole, 'secret.docx')).toBe('application/x-ole-storage');
  });
});

describe('sniffType for text formats', () => {
  it('detects an e-mail by its RFC 5322 header block, with or without an .eml name', () => {
    const mail = 'Return-Path: <a@b.c>\nReceived: from x\n\tby y\nFrom: A <a@b.c>\nTo: d@e.f\nSubject: Hi\n\nBody\n';
    expect(sniffType(text(mail), 'message')).toBe('message/rfc822');
    expect(sniffType(text(`From a@b.c Sat Jan  3 01:05:34 1996\n${mail}`), 'x.eml')).toBe('message/rfc822');
    expect(looksLikeEmail('Title: My notes\nAuthor: me\n\ntext')).toBe(false);
    expect(looksLikeEmail('From: a\nSubject: b\nthis is prose, not a header\n\nbody')).toBe(false);
  });

  it('lets a Markdown name win over header-like front matter', () => {
    expect(sniffType(text('From: a@b.c\nSubject: notes\n\n# Notes\n'), 'notes.md')).toBe('text/markdown');
  });

  it('calls a .csv CSV only when its delimiter splits the records consistently', () => {
    expect(sniffType(text('a,b,c\n1,2,3\n4,5,6\n'), 'x.csv')).toBe('text/csv');
    expect(sniffType(text('name;note\n"Smith; J.";"two\nlines"\nLee;x\n'), 'x.csv')).toBe('text/csv');
    expect(sniffType(text('Just some prose, with a comma.\nAnd another line without one.\nThird line.\n'), 'x.csv')).toBe('text/plain');
    expect(sniffType(text('a\tb\n1\t2\n'), 'x.tsv')).toBe('text/tab-separated-values');
    expect(sniffType(text('a,b\n1,2\n'), 'x.txt')).toBe('text/plain');
    expect(consistentDelimiter('a|b|c\n1|2|3\n', [','])).toBe(false);
  });

  it('detects a Shift-JIS CSV as text and as CSV', () => {
    const sjis = Buffer.from('96bc914f2c944e97ee2c8f5a8f8a0d0a8db293a191be98592c33302c938c8b9e0d0a', 'hex');
    expect(sniffType(sjis, 'test_mskanji.csv')).toBe('text/csv');
    expect(sniffType(sjis, 'test_mskanji.txt')).toBe('text/plain');
  });

  it('detects JSON when it parses or by its extension, and YAML by extension', () => {
    expect(sniffType(text('{"a": [1, 2]}'), 'data')).toBe('application/json');
    expect(sniffType(text('[1, 2'), 'broken.json')).toBe('application/json');
    expect(sniffType(text('{ not json'), 'x.txt')).toBe('text/plain');
    expect(sniffType(text('a: 1\n'), 'c.yml')).toBe('application/yaml');
    expect(sniffType(text('a: 1\n'), 'c.yaml')).toBe('application/yaml');
  });

  it('detects RST by extension, or by underlined titles together with RST-only markup', () => {
    expect(sniffType(text('Title\n=====\n\ntext\n'), 'README.rst')).toBe('text/x-rst');
    expect(sniffType(text('Title\n=====\n\n.. note:: careful\n'), 'README')).toBe('text/x-rst');
    expect(sniffType(text('Title\n=====\n\nplain words\n'), 'notes.txt')).toBe('text/plain');
  });

  it('detects source code by extension', () => {
    for (const name of ['a.ts', 'b.py', 'c.go', 'd.rs', 'e.java', 'f.c', 'g.cpp', 'h.h', 'i.rb', 'j.sh', 'k.sql', 'l.js']) {
      expect(sniffType(text('x = 1\n'), name), name).toBe('text/x-source');
    }
  });

  it('never lets a text name make binary data text', () => {
    expect(sniffType(Buffer.from([0, 1, 2, 3, 0, 0, 0xff]), 'x.csv')).toBe('application/octet-stream');
  });
});
