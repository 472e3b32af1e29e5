import { plain, splitTable } from './markdown.ts';
import { type XmlElement, child, descendants, elements, isElement, path, textOf } from './xml.ts';

/** DrawingML text bodies, tables and charts (shared by slides, notes and chart parts). */

/** One paragraph's text: runs, fields and line breaks (`a:br`), tabs as spaces. */
export function paragraphText(p: XmlElement): string {
  let out = '';
  for (const c of p.children) {
    if (!isElement(c)) continue;
    if (c.name === 'r' || c.name === 'fld') out += elements(c, 't').map(textOf).join('');
    else if (c.name === 'br') out += '\n';
    else if (c.name === 'AlternateContent') out += paragraphText(child(c, 'Choice') ?? c);
  }
  return out.replace(/\t/g, ' ');
}

/** Paragraph texts of a text body, empty ones dropped. */
export const bodyParagraphs = (txBody: XmlElement | undefined): { text: string; p: XmlElement }[] =>
  txBody
    ? elements(txBody, 'p')
        .map((p) => ({ text: paragraphText(p), p }))
        .filter((x) => x.text.trim() !== '')
    : [];

/** A text body as Markdown: bullet paragraphs become (nested) list items, others plain paragraphs. */
export function bodyMarkdown(txBody: XmlElement | undefined, bulletsByDefault: boolean): string {
  const lines: string[] = [];
  let prevList = false;
  for (const { text, p } of bodyParagraphs(txBody)) {
    const pPr = child(p, 'pPr');
    const level = Number(pPr?.attrs.lvl ?? 0);
    const list = child(pPr, 'buNone') ? undefined : child(pPr, 'buAutoNum') ? '1.' : child(pPr, 'buChar') || bulletsByDefault ? '-' : undefined;
    const body = plain(text.trim()).replace(/\n/g, list ? `\n${'  '.repeat(level + 1)}` : '  \n');
    if (list) lines.push(`${prevList ? '' : '\n'}${'  '.repeat(level)}${list} ${body}`);
    else lines.push(`\n${body}`);
    prevList = list !== undefined;
  }
  return lines.join('\n').trim();
}

/** A DrawingML table (`a:tbl`) as GFM, first row as header; merged-away cells left empty. */
export function tableMarkdown(tbl: XmlElement): string {
  const rows = elements(tbl, 'tr').map((tr) =>
    elements(tr, 'tc').map((tc) =>
      tc.attrs.hMerge || tc.attrs.vMerge
        ? ''
        : bodyParagraphs(child(tc, 'txBody'))
            .map((x) => x.text)
            .join('\n'),
    ),
  );
  const [header, ...rest] = rows;
  return header ? splitTable(header, rest).join('\n\n') : '';
}

/** Cached point values of a chart reference (`c:strRef`/`c:numRef`/`c:strLit`), by index. */
function points(el: XmlElement | undefined): string[] {
  const out: string[] = [];
  for (const pt of el ? descendants(el, 'pt') : []) out[Number(pt.attrs.idx ?? out.length)] = textOf(child(pt, 'v') ?? pt);
  return out;
}

/** A chart part as a heading (its title) plus a table of categories × series from the cached values. */
export function chartMarkdown(chartSpace: XmlElement): string {
  const chart = child(chartSpace, 'chart');
  const title = descendants(child(chart, 'title') ?? { name: '', attrs: {}, children: [] }, 't')
    .map(textOf)
    .join('')
    .trim();
  const series = descendants(path(chart, 'plotArea') ?? chartSpace, 'ser').map((ser) => ({
    name: points(child(ser, 'tx')).join(' ') || `Series ${Number(child(ser, 'idx')?.attrs.val ?? 0) + 1}`,
    cats: points(child(ser, 'cat') ?? child(ser, 'xVal')),
    vals: points(child(ser, 'val') ?? child(ser, 'yVal')),
  }));
  const head = `Chart${title ? `: ${title}` : ''}`;
  const n = Math.max(0, ...series.map((s) => Math.max(s.cats.length, s.vals.length)));
  if (series.length === 0 || n === 0) return `**${plain(head)}**`;
  const cats = series.find((s) => s.cats.length > 0)?.cats ?? [];
  const rows = Array.from({ length: n }, (_, i) => [cats[i] ?? String(i + 1), ...series.map((s) => s.vals[i] ?? '')]);
  return [`**${plain(head)}**`, ...splitTable(['Category', ...series.map((s) => s.name)], rows)].join('\n\n');
}
