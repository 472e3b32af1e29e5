import { type GroupStyle, headingLevels, isHeading } from './headings.ts';
import { LIST_START, type Proto } from './paragraphs.ts';
import type { DocStats } from './stats.ts';
import { joinLines } from './text.ts';
import { type Block, type Line, type ListItem, lineText } from './types.ts';

type Group = Extract<Proto, { kind: 'group' }>;

const BULLET = /^(?:[•◦▪▫■□●○‣⁃∙·∗]\s*|[*–—-]\s+)/;
const ORDERED = /^(\d{1,3})([.)])\s+/;

function styleOf(g: Group): GroupStyle {
  const weights = new Map<number, number>();
  for (const l of g.lines) weights.set(l.size, (weights.get(l.size) ?? 0) + lineText(l).length);
  const size = [...weights].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0;
  return { text: joinLines(g.lines.map(lineText)), lines: g.lines.length, size, bold: g.lines.every((l) => l.bold), ocr: g.ocr };
}

function listItem(text: string): ListItem {
  const ordered = ORDERED.exec(text);
  if (ordered) return { marker: `${ordered[1]}${ordered[2]}`, text: text.slice(ordered[0].length) };
  return { marker: '-', text: text.replace(BULLET, '') };
}

/** Code keeps its lines, and its cells their columns (monospaced advance ≈ 0.6 em). */
function codeText(lines: Line[]): string {
  const left = Math.min(...lines.map((l) => l.x0));
  return lines
    .map((l) => {
      let text = '';
      for (const c of l.cells) {
        const col = Math.max(0, Math.round((c.x0 - left) / (0.6 * l.size)));
        text += ' '.repeat(Math.max(text ? 1 : 0, col - text.length)) + c.text;
      }
      return text;
    })
    .join('\n');
}

/**
 * Lines of uneven length (an address, a letterhead, a signature) keep their breaks: some line other than the
 * last is well short of the widest. Ordinary paragraphs fill every line but the last.
 */
function isLineBlock(lines: Line[]): boolean {
  const widest = Math.max(...lines.map((l) => l.x1 - l.x0));
  return lines.length >= 2 && lines.slice(0, -1).some((l) => l.x1 - l.x0 < 0.7 * widest && !/-$/.test(lineText(l)));
}

/** Append a block, merging list items into the list before them and code into the code before it (with their source lines). */
function push(out: Block[], block: Block): void {
  const last = out[out.length - 1];
  if (block.kind === 'list' && last?.kind === 'list') last.items.push(...block.items);
  else if (block.kind === 'code' && last?.kind === 'code') last.text += `\n${block.text}`;
  else {
    out.push(block);
    return;
  }
  if (block.src) last.src = [...(last.src ?? []), ...block.src];
}

function groupBlock(g: Group, style: GroupStyle, level: 1 | 2 | 3 | undefined): Block {
  if (level !== undefined) return { kind: 'heading', level, text: style.text };
  if (g.lines.length >= 2 && g.lines.every((l) => l.mono) && !g.ocr) return { kind: 'code', text: codeText(g.lines) };
  if (LIST_START.test(style.text)) return { kind: 'list', items: [listItem(style.text)] };
  if (isLineBlock(g.lines)) return { kind: 'paragraph', text: g.lines.map(lineText).join('\n') };
  return { kind: 'paragraph', text: style.text };
}

function protoBlock(p: Exclude<Proto, Group>): Block {
  return p.kind === 'table' ? { kind: 'table', rows: p.rows, src: p.src } : { kind: 'image', placeholder: p.placeholder, alt: p.alt, src: p.src };
}

/** Every page's protos as Markdown blocks, with heading levels decided over the whole document. */
export function toBlocks(pages: Proto[][], stats: DocStats): Block[][] {
  const styles = new Map<Group, GroupStyle>();
  for (const p of pages.flat()) if (p.kind === 'group') styles.set(p, styleOf(p));
  const headings = [...styles].filter(([, s]) => isHeading(s, stats));
  const levelList = headingLevels(headings.map(([, s]) => s));
  const levels = new Map(headings.map(([g], i) => [g, levelList[i]]));
  return pages.map((protos) => {
    const out: Block[] = [];
    for (const p of protos) {
      if (p.kind !== 'group') push(out, protoBlock(p));
      else push(out, { ...groupBlock(p, styles.get(p) as GroupStyle, levels.get(p)), src: p.src });
    }
    return out;
  });
}
