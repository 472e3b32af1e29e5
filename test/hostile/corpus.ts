import { threePagePdf } from '../fixtures/documents.ts';
import { makeZip, ooxml } from './zip.ts';

/** One hostile file and what must become of it. */
export interface HostileFile {
  /** What the file attacks. */
  kind: string;
  filename: string;
  bytes: Uint8Array;
  /** `error`: must end in error with a message matching `message`; `any`: must only end in a terminal state. */
  expect: 'error' | 'any';
  message?: RegExp;
}

let seed = 42;
const random = (n: number): Buffer => {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    b[i] = seed >>> 16;
  }
  return b;
};
const bytes = (...parts: (string | number[] | Buffer)[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

const BILLION_LAUGHS = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;"><!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;"><!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;"><!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;"><!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;"><!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;"><!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">]>`;
const docxBody = (inner: string) =>
  `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>${inner}</w:t></w:r></w:p></w:body></w:document>`;
const XXE = `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>`;

function binaries(): HostileFile[] {
  const names = ['notes.md', 'notes.txt', 'page.html', 'report.pdf', 'memo.docx', 'sheet.xlsx', 'deck.pptx', 'data.csv', 'noext', 'mail.eml'];
  return [...names, ...names.map((n) => `copy-${n}`)].map((filename, i) => ({
    kind: `random bytes #${i}`,
    filename,
    bytes: random(2048 + i * 997),
    expect: 'error' as const,
    message: /unsupported|not supported|could not|corrupt|invalid|damaged|type/i,
  }));
}

function spoofed(): HostileFile[] {
  const sig: [string, number[]][] = [
    ['ELF executable', [0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]],
    ['Windows executable', [0x4d, 0x5a, 0x90, 0x00]],
    ['Mach-O binary', [0xcf, 0xfa, 0xed, 0xfe]],
    ['WebAssembly module', [0x00, 0x61, 0x73, 0x6d]],
    ['gzip archive', [0x1f, 0x8b, 0x08, 0x00]],
    ['bzip2 archive', [0x42, 0x5a, 0x68, 0x39]],
    ['7z archive', [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]],
    ['RAR archive', [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07]],
    ['SQLite database', [...Buffer.from('SQLite format 3\0')]],
    ['OLE compound file (encrypted or legacy Office)', [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]],
  ];
  return sig.flatMap(([kind, magic]) =>
    ['readme.md', 'report.docx'].map((filename) => ({ kind: `${kind} named ${filename}`, filename, bytes: bytes(magic, random(4000)), expect: 'error' as const, message: /unsupported|not supported|encrypted|legacy|could not|type/i })),
  );
}

function images(): HostileFile[] {
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  return [
    { kind: 'PNG signature then garbage, named .md', filename: 'chart.md', bytes: bytes(png, random(3000)), expect: 'error', message: /image|png|unsupported|could not|corrupt|invalid/i },
    { kind: 'PNG signature then garbage, named .png', filename: 'chart.png', bytes: bytes(png, random(3000)), expect: 'error', message: /image|png|unsupported|could not|corrupt|invalid/i },
    { kind: 'truncated JPEG', filename: 'photo.jpg', bytes: bytes([0xff, 0xd8, 0xff, 0xe0], random(100)), expect: 'error', message: /image|jpe?g|unsupported|could not|corrupt|invalid/i },
    { kind: 'GIF header only', filename: 'anim.gif', bytes: bytes('GIF89a'), expect: 'error', message: /image|gif|unsupported|could not|corrupt|invalid/i },
    { kind: 'TIFF header only', filename: 'scan.tiff', bytes: bytes([0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0]), expect: 'error', message: /image|tiff|unsupported|could not|corrupt|invalid/i },
    { kind: 'PNG claiming 100000x100000 pixels', filename: 'huge.png', bytes: bytes(png, [0, 0, 0, 13], 'IHDR', [0, 1, 0x86, 0xa0, 0, 1, 0x86, 0xa0, 8, 6, 0, 0, 0], [0, 0, 0, 0]), expect: 'error', message: /image|png|large|pixels|unsupported|could not|corrupt|invalid/i },
  ];
}

function pdfs(): HostileFile[] {
  const real = Buffer.from(threePagePdf());
  const err = /pdf|corrupt|damaged|truncated|invalid|encrypted|password|could not|unsupported/i;
  return [
    { kind: 'PDF header only', filename: 'a.pdf', bytes: bytes('%PDF-1.7\n'), expect: 'error', message: err },
    { kind: 'PDF header then garbage', filename: 'b.pdf', bytes: bytes('%PDF-1.7\n', random(20000)), expect: 'error', message: err },
    { kind: 'real PDF truncated at 10%', filename: 'c.pdf', bytes: real.subarray(0, Math.floor(real.length * 0.1)), expect: 'any' },
    { kind: 'real PDF truncated at 50%', filename: 'd.pdf', bytes: real.subarray(0, Math.floor(real.length * 0.5)), expect: 'any' },
    { kind: 'PDF with an encryption dictionary', filename: 'e.pdf', bytes: bytes('%PDF-1.6\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n3 0 obj<</Filter/Standard/V 2/R 3/O(xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx)/U(xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx)/P -4>>endobj\ntrailer<</Root 1 0 R/Encrypt 3 0 R/ID[<01><01>]>>\n%%EOF'), expect: 'error', message: err },
    { kind: 'PDF with a self-referencing page tree', filename: 'f.pdf', bytes: bytes('%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[2 0 R]/Count 1>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF'), expect: 'error', message: err },
    { kind: 'PDF whose stream claims a huge length', filename: 'g.pdf', bytes: bytes('%PDF-1.4\n1 0 obj<</Length 99999999999>>stream\n', random(1000), '\nendstream endobj\ntrailer<</Root 1 0 R>>\n%%EOF'), expect: 'error', message: err },
    { kind: 'real PDF with its xref table cut off', filename: 'h.pdf', bytes: real.subarray(0, Math.max(0, real.lastIndexOf('xref'))), expect: 'any' },
  ];
}

function zips(): HostileFile[] {
  const bomb = { name: 'word/document.xml', data: Buffer.alloc(300 * 1024 * 1024, 0x20) };
  const zipErr = /zip|archive|compress|bomb|too (large|many|big)|limit|exceed|entries|unsupported|corrupt|could not|invalid|truncated|damaged|DOCTYPE|DTD|entit/i;
  const manyEntries = Array.from({ length: 70_000 }, (_, i) => ({ name: `x/${i}.xml`, data: '' }));
  const deepZip = makeZip([{ name: 'inner.zip', data: makeZip([{ name: 'inner2.zip', data: makeZip([{ name: 'a.txt', data: Buffer.alloc(50 * 1024 * 1024) }]) }]) }]);
  const list: [string, string, Buffer, 'error' | 'any'][] = [
    ['empty zip', 'empty.docx', makeZip([]), 'error'],
    ['zip of random entries', 'misc.zip', makeZip([{ name: 'a.bin', data: random(1000) }]), 'error'],
    ['zip bomb: 300 MB of spaces in word/document.xml', 'bomb.docx', ooxml('docx', '', [bomb]), 'error'],
    ['zip bomb: 300 MB sheet', 'bomb.xlsx', makeZip([{ name: '[Content_Types].xml', data: '<Types/>' }, { name: 'xl/workbook.xml', data: '<workbook/>' }, { name: 'xl/worksheets/sheet1.xml', data: Buffer.alloc(300 * 1024 * 1024, 0x20) }]), 'error'],
    ['zip bomb: 300 MB slide', 'bomb.pptx', makeZip([{ name: '[Content_Types].xml', data: '<Types/>' }, { name: 'ppt/presentation.xml', data: '<p/>' }, { name: 'ppt/slides/slide1.xml', data: Buffer.alloc(300 * 1024 * 1024, 0x20) }]), 'error'],
    ['zip bomb declaring small sizes', 'liar.docx', ooxml('docx', docxBody('x'), [{ name: 'word/media/big.bin', data: Buffer.alloc(200 * 1024 * 1024), declaredSize: 10 }]), 'error'],
    ['70,000 entries', 'many.docx', ooxml('docx', docxBody('x'), manyEntries), 'error'],
    ['nested zip bomb', 'nested.docx', ooxml('docx', docxBody('x'), [{ name: 'word/embeddings/inner.zip', data: deepZip }]), 'any'],
    ['traversal entry names', 'evil.docx', ooxml('docx', docxBody('hello'), [{ name: '../../../../tmp/dossier-evil.txt', data: 'pwned' }, { name: '/etc/dossier-evil', data: 'pwned' }]), 'any'],
    ['billion laughs in word/document.xml', 'laughs.docx', ooxml('docx', `${BILLION_LAUGHS}${docxBody('&lol9;')}`), 'error'],
    ['billion laughs in a sheet', 'laughs.xlsx', makeZip([{ name: '[Content_Types].xml', data: '<Types/>' }, { name: 'xl/workbook.xml', data: `${BILLION_LAUGHS}<workbook>&lol9;</workbook>` }]), 'error'],
    ['external entity (XXE) in word/document.xml', 'xxe.docx', ooxml('docx', `${XXE}${docxBody('&xxe;')}`), 'any'],
    ['truncated docx', 'cut.docx', ooxml('docx', docxBody('hello world '.repeat(2000))).subarray(0, 600), 'error'],
    ['docx with a corrupt deflate stream', 'rot.docx', (() => {
      const z = ooxml('docx', docxBody('hello world '.repeat(500)));
      z.fill(0xaa, 200, 400);
      return z;
    })(), 'error'],
  ];
  return list.map(([kind, filename, b, expect]) => ({ kind, filename, bytes: b, expect, message: expect === 'error' ? zipErr : undefined }));
}

function texts(): HostileFile[] {
  const any = (kind: string, filename: string, b: Buffer | string): HostileFile => ({ kind, filename, bytes: typeof b === 'string' ? Buffer.from(b) : b, expect: 'any' });
  return [
    { kind: 'empty file', filename: 'empty.md', bytes: Buffer.alloc(0), expect: 'error', message: /empty/i },
    { kind: 'whitespace only', filename: 'blank.txt', bytes: Buffer.from(' \n\t\n   \n'), expect: 'error', message: /no text|empty/i },
    any('50,000 nested blockquotes', 'quotes.md', '>'.repeat(50_000) + ' deep'),
    any('100,000 open brackets', 'brackets.md', '['.repeat(100_000)),
    any('100,000 nested list items', 'lists.md', Array.from({ length: 5000 }, (_, i) => `${' '.repeat(Math.min(i * 2, 4000))}- item ${i}`).join('\n')),
    any('a 12 MB single line', 'line.txt', 'word '.repeat(2_400_000)),
    any('100,000 headings', 'headings.md', Array.from({ length: 100_000 }, (_, i) => `# H${i}`).join('\n')),
    any('100,000 nested divs', 'divs.html', '<div>'.repeat(100_000) + 'deep' + '</div>'.repeat(100_000)),
    any('HTML with only scripts and styles', 'scripts.html', '<html><head><style>body{}</style><script>alert(1)</script></head><body><script>x()</script></body></html>'),
    any('invalid UTF-8 sequences', 'bad-utf8.txt', bytes('caf', [0xc3], ' na', [0xef, 0xbf], 'ive ', [0xf8, 0x88, 0x80, 0x80, 0x80], ' ok text here')),
    any('UTF-16 with an odd byte count', 'odd.txt', bytes([0xff, 0xfe], 'h\0i\0', [0x41])),
    any('lone surrogates', 'surrogates.md', Buffer.from('# Title\n\nbad \ud800 pair \udfff end', 'utf8')),
    any('NUL-free control characters', 'controls.txt', Buffer.from(`text ${'\u0007\u0008'.repeat(10)} more text `.repeat(100))),
    any('a 1 MB Markdown table row', 'wide.md', `| ${'a | '.repeat(250_000)}\n| ${'- | '.repeat(250_000)}\n`),
    any('deeply nested JSON', 'deep.json', '['.repeat(200_000) + ']'.repeat(200_000)),
    any('YAML alias bomb', 'bomb.yaml', 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\ni: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n'),
    any('CSV with 100,000 columns', 'wide.csv', `${Array.from({ length: 100_000 }, (_, i) => `c${i}`).join(',')}\n${'1,'.repeat(99_999)}1\n`),
    any('CSV with unbalanced quotes', 'quotes.csv', 'a,b\n"unterminated,1\n2,3\n'.repeat(1000)),
    any('e-mail with a MIME boundary nested 1,000 deep', 'nested.eml', `From: a@b.c\nTo: d@e.f\nSubject: nest\nMIME-Version: 1.0\n${Array.from({ length: 1000 }, (_, i) => `Content-Type: multipart/mixed; boundary="b${i}"\n\n--b${i}\n`).join('')}Content-Type: text/plain\n\nhello\n`),
    any('e-mail with a broken base64 attachment', 'att.eml', 'From: a@b.c\nTo: d@e.f\nSubject: att\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="x"\n\n--x\nContent-Type: text/plain\n\nbody\n--x\nContent-Type: application/octet-stream\nContent-Transfer-Encoding: base64\n\n!!!!not base64####\n--x--\n'),
    any('RST with 10,000 nested directives', 'deep.rst', Array.from({ length: 10_000 }, (_, i) => `${'   '.repeat(Math.min(i, 300))}.. note::`).join('\n')),
  ];
}

/** Names that try to escape a folder or confuse a shell or a terminal; the content is harmless. */
function filenames(): HostileFile[] {
  const names = ['../../../../tmp/dossier-escape.md', '..\\..\\..\\windows\\win.ini.md', '/etc/passwd.md', 'nul\0byte.md', 'new\nline.md', `${'a'.repeat(1000)}.md`, '\u202Egnp.md', 'CON.md', '..', '.', '  ', '%2e%2e%2fescape.md', 'ok/../../x.md'];
  return names.map((filename) => ({ kind: `filename ${JSON.stringify(filename.slice(0, 40))}`, filename, bytes: Buffer.from('# Harmless\n\nA harmless document with a hostile name.\n'), expect: 'any' as const }));
}

/** The whole hostile corpus: more than 100 files, generated here and never stored in the repository. */
export function hostileCorpus(): HostileFile[] {
  return [...binaries(), ...spoofed(), ...images(), ...pdfs(), ...zips(), ...texts(), ...filenames()];
}
