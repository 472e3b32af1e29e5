import { sniffType } from '@dossier/core/internal';
import type { ConvertResult } from '@dossier/core';
import { type PdfOptions, pdfConverters } from '../../src/converters/pdf/index.ts';

/** Text placed on a generated page: PDF coordinates (origin bottom left, points). */
export interface TextOp {
  text: string;
  x: number;
  y: number;
  size?: number;
  bold?: boolean;
}

/** A raw RGB image painted on a generated page. */
export interface ImageOp {
  width: number;
  height: number;
  rgb: Uint8Array;
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface PageSpec {
  texts: TextOp[];
  images?: ImageOp[];
}

const esc = (s: string): string => s.replace(/[\\()]/g, (c) => `\\${c}`);

/** Latin-1 bytes of a string, with `•` mapped to WinAnsi's bullet (0x95). */
const winAnsi = (s: string): Buffer => Buffer.from(s.replace(/•/g, '\x95'), 'latin1');

function contentStream(page: PageSpec): Buffer {
  const parts = page.texts.map((t) => `BT /${t.bold ? 'F2' : 'F1'} ${t.size ?? 10} Tf ${t.x} ${t.y} Td (${esc(t.text)}) Tj ET`);
  for (const [i, im] of (page.images ?? []).entries()) parts.push(`q ${im.w} 0 0 ${im.h} ${im.x} ${im.y} cm /Im${i} Do Q`);
  return winAnsi(parts.join('\n'));
}

/**
 * A minimal, valid PDF (letter pages, Helvetica and Helvetica-Bold, WinAnsi text, raw RGB images) with a
 * correct cross-reference table: enough to exercise layout rules with known geometry.
 */
export function makePdf(pages: PageSpec[], opts: { trailerExtra?: string } = {}): Uint8Array {
  const objs: Buffer[] = [];
  const add = (body: Buffer | string): number => objs.push(typeof body === 'string' ? Buffer.from(body, 'latin1') : body);
  add('<< /Type /Catalog /Pages 2 0 R >>');
  add(''); // pages, filled in below
  const f1 = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const f2 = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>');
  const kids: number[] = [];
  for (const page of pages) {
    const xobjects = (page.images ?? []).map((im, i) => {
      const head = `<< /Type /XObject /Subtype /Image /Width ${im.width} /Height ${im.height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Length ${im.rgb.length} >>\nstream\n`;
      return `/Im${i} ${add(Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(im.rgb), Buffer.from('\nendstream', 'latin1')]))} 0 R`;
    });
    const stream = contentStream(page);
    const content = add(Buffer.concat([Buffer.from(`<< /Length ${stream.length} >>\nstream\n`, 'latin1'), stream, Buffer.from('\nendstream', 'latin1')]));
    const resources = `<< /Font << /F1 ${f1} 0 R /F2 ${f2} 0 R >> /XObject << ${xobjects.join(' ')} >> >>`;
    kids.push(add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources ${resources} /Contents ${content} 0 R >>`));
  }
  objs[1] = Buffer.from(`<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`, 'latin1');
  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n', 'latin1')];
  const offsets: number[] = [];
  let at = chunks[0]!.length;
  objs.forEach((body, i) => {
    const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')]);
    offsets.push(at);
    chunks.push(obj);
    at += obj.length;
  });
  const xref = ['xref', `0 ${objs.length + 1}`, '0000000000 65535 f ', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n `)].join('\n');
  chunks.push(Buffer.from(`${xref}\ntrailer\n<< /Size ${objs.length + 1} /Root 1 0 R ${opts.trailerExtra ?? ''}>>\nstartxref\n${at}\n%%EOF\n`, 'latin1'));
  return new Uint8Array(Buffer.concat(chunks));
}

/** Lines of prose placed one under another from (x, y) down, `pitch` apart. */
export const column = (lines: string[], x: number, y: number, opts: { size?: number; pitch?: number; bold?: boolean } = {}): TextOp[] =>
  lines.map((text, i) => ({ text, x, y: y - i * (opts.pitch ?? 12), size: opts.size ?? 10, bold: opts.bold }));

/** Convert bytes the way the registry would: type sniffed from the bytes, then the matching PDF/image converter. */
export async function convertBytes(bytes: Uint8Array, filename: string, options: PdfOptions = {}): Promise<ConvertResult> {
  const detectedType = sniffType(bytes, filename);
  const converter = pdfConverters(options).find((c) => c.types.includes(detectedType));
  if (!converter) throw new Error(`no PDF/image converter for ${detectedType}`);
  return converter.convert({ bytes, filename, detectedType });
}

/** The Markdown of each page, cut at `pageOffsets`. */
export function pagesOf(r: ConvertResult): string[] {
  const offsets = r.pageOffsets ?? [0];
  return offsets.map((o, i) => r.markdown.slice(o, offsets[i + 1] ?? r.markdown.length));
}
