import type { TextRegion } from '@dossier/core/conversion';
import { escapeCell, escapeLeading } from './text.ts';
import type { Block, SourceLine } from './types.ts';

function table(rows: string[][]): string {
  const width = Math.max(...rows.map((r) => r.length));
  const line = (r: string[]): string => `| ${Array.from({ length: width }, (_, i) => escapeCell(r[i] ?? '')).join(' | ')} |`;
  const [head = [], ...body] = rows;
  return [line(head), `|${' --- |'.repeat(width)}`, ...body.map(line)].join('\n');
}

function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}\n${text}\n${ticks}`;
}

/** One block as Markdown. */
export function renderBlock(b: Block): string {
  switch (b.kind) {
    case 'heading':
      return `${'#'.repeat(b.level)} ${b.text}`;
    case 'paragraph':
      // Kept line breaks are Markdown hard breaks; every line is escaped, since a list can interrupt a paragraph.
      return b.text.split('\n').map(escapeLeading).join('  \n');
    case 'list':
      return b.items.map((i) => `${i.marker} ${i.text}`).join('\n');
    case 'table':
      return table(b.rows);
    case 'code':
      return fence(b.text);
    case 'image':
      return `![${b.alt.replace(/[[\]]/g, '')}](${b.placeholder})`;
    case 'note':
      return `*[${b.text}]*`;
  }
}

/** A paragraph cut by a page break: no sentence end before it, a lowercase start after it. */
function continues(last: Block | undefined, first: Block | undefined): boolean {
  if (last?.kind !== 'paragraph' || first?.kind !== 'paragraph' || last.text.includes('\n') || first.text.includes('\n')) return false;
  return !/[.!?:;"”)\]]$/.test(last.text) && /^\p{Ll}/u.test(first.text);
}

/** The start of a line's text in a block's Markdown, searched from `from`: its first words, else its first word. */
function findLine(rendered: string, text: string, from: number): number | undefined {
  const words = text
    .replace(/\u00AD/g, '')
    .trim()
    .split(/\s+/);
  for (const key of [words.slice(0, 3).join(' '), words[0] ?? '']) {
    if (!key) continue;
    const at = rendered.indexOf(key, from);
    if (at >= 0) return at;
  }
  return undefined;
}

/**
 * Where each source line starts in its block's Markdown. The first line starts the block (its markup too); each
 * later one is searched for past most of the line before it, and where it cannot be found (escaped or rejoined
 * text) its start is estimated from the share of the block's text before it.
 */
function lineStarts(rendered: string, src: SourceLine[]): number[] {
  const total = src.reduce((n, l) => n + l.text.trim().length, 0) || 1;
  let cursor = 0;
  let before = 0;
  return src.map((line, i) => {
    const prev = src[i - 1];
    const from = prev ? cursor + Math.floor(0.6 * prev.text.trim().length) : 0;
    const found = prev ? findLine(rendered, line.text, from) : 0;
    cursor = Math.max(cursor, found ?? Math.round((before / total) * rendered.length));
    before += line.text.trim().length;
    return cursor;
  });
}

/** A rendered block's regions: each source line's box over its share of the block's characters. */
function blockRegions(rendered: string, at: number, page: number, src: SourceLine[] | undefined): TextRegion[] {
  if (!src?.length) return [];
  const starts = lineStarts(rendered, src);
  const out: TextRegion[] = [];
  for (const [i, line] of src.entries()) {
    const start = at + (starts[i] as number);
    const end = at + (starts[i + 1] ?? rendered.length);
    if (end > start) out.push({ start, end, page, box: line.box });
  }
  return out;
}

/**
 * Pages of blocks as one Markdown text, with the offset where each page starts and where each source line's text
 * went (`regions`). A paragraph that runs on to the next page is joined back (a word broken across the pages loses
 * its hyphen), and that page's offset points at the first character that came from it.
 */
export function renderPages(pages: Block[][]): { markdown: string; pageOffsets: number[]; regions: TextRegion[] } {
  let markdown = '';
  const pageOffsets: number[] = [];
  const regions: TextRegion[] = [];
  let last: Block | undefined;
  const emit = (b: Block, page: number): void => {
    const text = renderBlock(b);
    regions.push(...blockRegions(text, markdown.length, page, b.src));
    markdown += `${text}\n\n`;
  };
  for (const [i, blocks] of pages.entries()) {
    let rest = blocks;
    if (continues(last, blocks[0])) {
      markdown = markdown.replace(/\n\n$/, '');
      if (/\p{Ll}-$/u.test(markdown)) markdown = markdown.slice(0, -1);
      else markdown += ' ';
      pageOffsets.push(markdown.length);
      emit(blocks[0] as Block, i + 1);
      rest = blocks.slice(1);
    } else {
      pageOffsets.push(markdown.length);
    }
    for (const b of rest) emit(b, i + 1);
    if (blocks.length) last = blocks[blocks.length - 1];
  }
  const final = markdown.replace(/\n+$/, '\n');
  const clamp = (o: number): number => Math.min(o, final.length);
  const kept = regions.map((r) => ({ ...r, start: clamp(r.start), end: clamp(r.end) })).filter((r) => r.end > r.start);
  return { markdown: final, pageOffsets: pageOffsets.map(clamp), regions: kept };
}
