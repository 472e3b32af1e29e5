import { type Converter, DossierError, htmlToMarkdown } from '@dossier/core/conversion';
import { guarded } from './guard.ts';
import { mathToLatex } from './omml.ts';
import { ImageCollector, relationships } from './opc.ts';
import { storeZip } from './store-zip.ts';
import { parseXml, saxParse } from './xml.ts';
import { ZipArchive } from './zip.ts';

export const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/**
 * DOCX through mammoth (style-aware: Heading 1–6, lists, tables, footnotes, comments, images) to
 * HTML, then core's HTML → Markdown path. mammoth unzips with JSZip, which has no zip-bomb caps,
 * so mammoth only ever sees a stored (uncompressed) copy of parts we already inflated under our
 * caps and checked for DOCTYPEs. mammoth drops Office Math, so equations are rewritten as text
 * runs holding LaTeX (`$…$` inline, `$$…$$` display) before it reads the document.
 */
export const docxConverter: Converter = {
  name: 'docx',
  types: [DOCX_TYPE],
  convert: ({ bytes }) => guarded('DOCX', () => convertDocx(bytes)),
};

/** The mammoth surface we use (loaded lazily so the library is only paid for by DOCX uploads). */
interface Mammoth {
  convertToHtml(input: { buffer: Buffer }, options: Record<string, unknown>): Promise<{ value: string }>;
  images: { imgElement(f: (image: MammothImage) => Promise<{ src: string }>): unknown };
}
interface MammothImage {
  contentType: string;
  readAsBuffer(): Promise<Buffer>;
}

async function convertDocx(bytes: Uint8Array): Promise<{ markdown: string; images: ImageCollector['images'] }> {
  const zip = ZipArchive.open(bytes);
  const main = mainPart(zip);
  const safe = storeZip(zip.names().map((name) => ({ name, data: sanitisePart(zip, name) })));
  const mammoth = ((await import('mammoth')) as unknown as { default: Mammoth }).default;
  const collector = new ImageCollector();
  const { value } = await mammoth.convertToHtml(
    { buffer: Buffer.from(safe.buffer, safe.byteOffset, safe.byteLength) },
    {
      styleMap: STYLE_MAP,
      externalFileAccess: false,
      convertImage: mammoth.images.imgElement(async (image) => ({
        src: collector.add(image.contentType, new Uint8Array(await image.readAsBuffer())),
      })),
    },
  );
  const markdown = await htmlToMarkdown(notesAsSections(headerRows(value)));
  if (!markdown.trim() && !zip.has(main)) throw new DossierError('conversion_failed', 'The DOCX file has no document body');
  return { markdown, images: collector.images };
}

/** The main document part named by the package relationships (normally word/document.xml). */
function mainPart(zip: ZipArchive): string {
  const rels = zip.has('_rels/.rels') ? relationships(zip, '') : new Map();
  const main = [...rels.values()].find((r) => r.type === 'officeDocument')?.target ?? 'word/document.xml';
  if (!zip.has(main)) throw new DossierError('conversion_failed', 'The DOCX file has no main document part (word/document.xml)');
  return main;
}

/** A part's bytes, inflated under the caps; XML parts checked for DOCTYPEs and their equations made text. */
function sanitisePart(zip: ZipArchive, name: string): Uint8Array {
  if (!/\.(xml|rels)$/i.test(name)) return zip.read(name);
  const text = zip.text(name);
  saxParse(text, name, CHECK_ONLY); // well-formed, no DOCTYPE, bounded depth: mammoth's xmldom checks none of these
  return new TextEncoder().encode(text.includes('oMath') ? mathAsText(text, name) : text);
}

const CHECK_ONLY = { open() {}, close() {}, text() {} };

const escapeXml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const run = (s: string): string => `<w:r><w:t xml:space="preserve">${escapeXml(s)}</w:t></w:r>`;

/** Replace each `m:oMathPara` / `m:oMath` with a run of LaTeX; the prefix is whatever the part binds to the math namespace. */
function mathAsText(xml: string, part: string): string {
  const prefix = xml.match(/xmlns:([\w.-]+)="http:\/\/schemas\.openxmlformats\.org\/officeDocument\/2006\/math"/)?.[1] ?? 'm';
  const ns = ` xmlns:${prefix}="http://schemas.openxmlformats.org/officeDocument/2006/math" xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`;
  const latex = (fragment: string): string => {
    const withNs = fragment.replace(/^<([\w.:-]+)/, `<$1${ns}`);
    return mathToLatex(parseXml(withNs, part));
  };
  const para = new RegExp(`<${prefix}:oMathPara\\b[\\s\\S]*?</${prefix}:oMathPara>`, 'g');
  const inline = new RegExp(`<${prefix}:oMath\\b[\\s\\S]*?</${prefix}:oMath>`, 'g');
  return xml.replace(para, (m) => run(`$$${[...m.matchAll(inline)].map((x) => latex(x[0])).join(' \\\\ ')}$$`)).replace(inline, (m) => run(`$${latex(m)}$`));
}

/** Comments are kept (mammoth drops them by default); Title/Subtitle become headings. */
const STYLE_MAP = ['comment-reference => sup', "p[style-name='Title'] => h1:fresh", "p[style-name='Subtitle'] => h2:fresh"];

/** A table without a header row gets its first row as header, as GFM needs one (else an empty header appears). */
const headerRows = (html: string): string =>
  html.replace(/<table>(\s*<tbody>)?\s*<tr>([\s\S]*?)<\/tr>/g, (m, _tbody, row: string) =>
    row.includes('<th') ? m : `<table><thead><tr>${row.replace(/<td\b/g, '<th').replace(/<\/td>/g, '</th>')}</tr></thead><tbody>`,
  );

/**
 * mammoth appends footnotes and endnotes as lists and comments as a definition list, linked both
 * ways. Keep the reference labels as text, drop the back-links, and give each block a heading so
 * the notes become their own sections.
 */
function notesAsSections(html: string): string {
  return html
    .replace(/<a href="#[^"]*-ref-[^"]*">↑<\/a>/g, '')
    .replace(/<a href="#(?:footnote|endnote|comment)-[^"]*" id="[^"]*">([^<]*)<\/a>/g, '$1')
    .replace(/<ol>(?=<li id="footnote-)/, '<h2>Footnotes</h2><ol>')
    .replace(/<ol>(?=<li id="endnote-)/, '<h2>Endnotes</h2><ol>')
    .replace(/<dl>(<dt id="comment-[\s\S]*)<\/dl>/, '<h2>Comments</h2>$1')
    .replace(/<dt id="comment-[^"]*">([^<]*)<\/dt><dd>([\s\S]*?)<\/dd>/g, '<p><strong>$1:</strong></p>$2');
}
