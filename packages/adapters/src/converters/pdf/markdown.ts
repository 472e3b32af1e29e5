import { escapeCell, escapeLeading } from './text.ts';
import type { Block } from './types.ts';

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

/**
 * Pages of blocks as one Markdown text, with the offset where each page starts. A paragraph that runs on to
 * the next page is joined back (a word broken across the pages loses its hyphen), and that page's offset
 * points at the first character that came from it.
 */
export function renderPages(pages: Block[][]): { markdown: string; pageOffsets: number[] } {
  let markdown = '';
  const pageOffsets: number[] = [];
  let last: Block | undefined;
  for (const blocks of pages) {
    let rest = blocks;
    if (continues(last, blocks[0])) {
      markdown = markdown.replace(/\n\n$/, '');
      if (/\p{Ll}-$/u.test(markdown)) markdown = markdown.slice(0, -1);
      else markdown += ' ';
      pageOffsets.push(markdown.length);
      markdown += `${renderBlock(blocks[0] as Block)}\n\n`;
      rest = blocks.slice(1);
    } else {
      pageOffsets.push(markdown.length);
    }
    for (const b of rest) markdown += `${renderBlock(b)}\n\n`;
    if (blocks.length) last = blocks[blocks.length - 1];
  }
  const final = markdown.replace(/\n+$/, '\n');
  return { markdown: final, pageOffsets: pageOffsets.map((o) => Math.min(o, final.length)) };
}
