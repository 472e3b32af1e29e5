import type { Converter } from '@dossier/core/conversion';
import { decodeUnknownText } from './encoding.ts';
import { guarded } from './guard.ts';
import { blocks, fence, headingText, plain, table } from './markdown.ts';

/**
 * reStructuredText to Markdown, line by line (docutils is Python; no maintained JS port exists).
 * Section levels follow the order in which adornment styles first appear (docutils' rule), literal
 * blocks (`::`) and code directives become fences, lists and grid/simple tables are kept, inline
 * markup is mapped (``code``, `text <url>`_, roles), comments and targets are dropped.
 */
export const rstConverter: Converter = {
  name: 'rst',
  types: ['text/x-rst'],
  convert: ({ bytes }) => guarded('reStructuredText', () => ({ markdown: rstToMarkdown(decodeUnknownText(bytes).text), images: [] })),
};

const ADORNMENT = /^([!-/:-@[-`{-~])\1{2,}\s*$/;
const BULLET = /^(\s*)([-*+•])\s+(.*)$/;
const ENUM = /^(\s*)(\d+|#|[a-zA-Z])[.)]\s+(.*)$/;
const DIRECTIVE = /^\.\.\s+([\w-]+)::\s*(.*)$/;
const indentOf = (l: string): number => l.length - l.trimStart().length;
const blank = (l: string | undefined): boolean => l === undefined || l.trim() === '';

/**
 * Nested blocks (quotes, list items, directive bodies) deeper than this are kept as plain text: each
 * level re-reads and re-prefixes its content, so unbounded nesting would cost depth × size.
 */
const MAX_NESTING = 10;

/** Convert a whole document (or a nested block, at `depth`). */
export function rstToMarkdown(source: string, depth = 0): string {
  if (depth > MAX_NESTING)
    return blocks([
      plain(
        source
          .split('\n')
          .map((l) => l.trim())
          .join('\n'),
      ),
    ]);
  return new RstReader(source.replace(/\t/g, '        ').split('\n'), depth).read();
}

class RstReader {
  private i = 0;
  private readonly out: string[] = [];
  private readonly styles: string[] = [];

  constructor(
    private readonly lines: string[],
    private readonly depth: number,
  ) {}

  read(): string {
    while (this.i < this.lines.length) this.block();
    return blocks(this.out);
  }

  private get line(): string {
    return this.lines[this.i] ?? '';
  }

  private block(): void {
    const l = this.line;
    if (blank(l)) this.i++;
    else if (this.heading()) return;
    else if (ADORNMENT.test(l) && blank(this.lines[this.i + 1])) {
      this.out.push('---');
      this.i++;
    } else if (/^\s*\+[-=+]+\+\s*$/.test(l)) this.gridTable();
    else if (/^\s*=+(\s+=+)+\s*$/.test(l)) this.simpleTable();
    else if (l.startsWith('..')) this.explicit();
    else if (BULLET.test(l) || ENUM.test(l)) this.list();
    else if (/^:[^:]+:(\s|$)/.test(l)) this.field();
    else if (indentOf(l) > 0) this.quote();
    else this.paragraph();
  }

  /** Underlined (or over- and underlined) titles; the level is the style's order of appearance. */
  private heading(): boolean {
    const [a, b, c] = [this.line, this.lines[this.i + 1] ?? '', this.lines[this.i + 2] ?? ''];
    const over = ADORNMENT.test(a) && !blank(b) && ADORNMENT.test(c) && c.trim() === a.trim();
    const under = !over && !blank(a) && indentOf(a) === 0 && ADORNMENT.test(b) && b.trim().length >= Math.min(3, a.trim().length);
    if (!over && !under) return false;
    const style = over ? `o${a.trim()[0]}` : (b.trim()[0] ?? '=');
    const title = over ? b : a;
    this.i += over ? 3 : 2;
    if (!this.styles.includes(style)) this.styles.push(style);
    this.out.push(`${'#'.repeat(Math.min(6, this.styles.indexOf(style) + 1))} ${headingText(inline(title.trim()))}`);
    return true;
  }

  /** Lines until a blank line (or a line matching stop). */
  private takeParagraph(stop?: RegExp): string[] {
    const taken: string[] = [];
    while (this.i < this.lines.length && !blank(this.line) && !(taken.length > 0 && stop?.test(this.line))) taken.push(this.lines[this.i++] ?? '');
    return taken;
  }

  /** The indented block after the current position (blank lines inside kept), dedented. */
  private takeIndented(minIndent = 1): string[] {
    const taken: string[] = [];
    while (this.i < this.lines.length && (blank(this.line) || indentOf(this.line) >= minIndent)) taken.push(this.lines[this.i++] ?? '');
    while (taken.length > 0 && blank(taken.at(-1))) taken.pop();
    const cut = Math.min(...taken.filter((l) => !blank(l)).map(indentOf));
    return taken.map((l) => l.slice(Number.isFinite(cut) ? cut : 0));
  }

  private paragraph(): void {
    const text = this.takeParagraph()
      .map((l) => l.trim())
      .join('\n');
    this.emitWithLiteral(text);
  }

  /** A paragraph ending in `::` introduces a literal block (rendered as a code fence). */
  private emitWithLiteral(text: string): void {
    if (!text.endsWith('::')) return void this.out.push(inline(text));
    const lead = text.replace(/\s*::$/, text.endsWith(' ::') || text === '::' ? '' : ':');
    if (lead) this.out.push(inline(lead));
    while (blank(this.line) && this.i < this.lines.length) this.i++;
    const code = this.takeIndented();
    if (code.length > 0) this.out.push(fence(code.join('\n')));
  }

  private quote(): void {
    const body = rstToMarkdown(this.takeIndented().join('\n'), this.depth + 1).trim();
    this.out.push(
      body
        .split('\n')
        .map((l) => (l ? `> ${l}` : '>'))
        .join('\n'),
    );
  }

  private field(): void {
    const fields = this.takeParagraph().map((l) => l.replace(/^:([^:]+):\s*/, (_m, k: string) => `**${k}:** `));
    this.out.push(fields.map((f) => inline(f.trim())).join('  \n'));
  }

  /** A run of list items; each item's continuation lines are joined, nested lists keep their indent. */
  private list(): void {
    const items: string[] = [];
    while (this.i < this.lines.length) {
      const m = BULLET.exec(this.line) ?? ENUM.exec(this.line);
      if (!m) break;
      const [, ws = '', marker = '-', first = ''] = m;
      const ordered = /^(\d+|#|[a-zA-Z])$/.test(marker);
      this.i++;
      const rest = this.takeIndented(ws.length + 1);
      const body = [first, ...rest].join('\n').trim();
      const mark = ordered ? '1.' : '-';
      items.push(`${mark} ${itemBody(body, ' '.repeat(mark.length + 1), this.depth + 1)}`);
      while (blank(this.line) && (BULLET.test(this.lines[this.i + 1] ?? '') || ENUM.test(this.lines[this.i + 1] ?? ''))) this.i++;
    }
    this.out.push(items.join('\n'));
  }

  /** Directives (code, images, admonitions), comments and hyperlink targets. */
  private explicit(): void {
    const m = DIRECTIVE.exec(this.line);
    this.i++;
    const body = this.takeIndented();
    if (!m) return; // a comment or a hyperlink target: no content to keep
    const [, name = '', arg = ''] = m;
    const options = new Map(body.filter((l) => /^:[\w-]+:/.test(l)).map((l) => [l.match(/^:([\w-]+):/)?.[1] ?? '', l.replace(/^:[\w-]+:\s*/, '')]));
    const content = body
      .filter((l) => !/^:[\w-]+:/.test(l))
      .join('\n')
      .replace(/^\n+/, '');
    this.out.push(directive(name.toLowerCase(), arg.trim(), options, content, this.depth + 1));
  }

  private gridTable(): void {
    const lines = this.takeParagraph().map((l) => l.trim());
    const rows: string[][] = [];
    let current: string[] | undefined;
    let headerRows = 0;
    for (const l of lines) {
      if (l.startsWith('+')) {
        if (current) rows.push(current);
        current = undefined;
        if (l.includes('=')) headerRows = rows.length;
        continue;
      }
      const cells = l
        .replace(/^\||\|$/g, '')
        .split('|')
        .map((c) => c.trim());
      current = current ? current.map((c, k) => `${c} ${cells[k] ?? ''}`.trim()) : cells;
    }
    this.emitTable(rows, headerRows);
  }

  private simpleTable(): void {
    const border = this.line;
    const starts = [...border.matchAll(/=+/g)].map((m) => m.index ?? 0);
    this.i++;
    const rows: string[][] = [];
    let headerRows = 0;
    while (this.i < this.lines.length && !(blank(this.line) && blank(this.lines[this.i + 1]))) {
      const l = this.line;
      this.i++;
      if (/^\s*=+(\s+=+)*\s*$/.test(l)) {
        if (headerRows === 0 && this.lines.slice(this.i).some((x) => /^\s*=+(\s+=+)+\s*$/.test(x))) headerRows = rows.length;
        if (blank(this.line)) break;
        continue;
      }
      if (blank(l)) continue;
      rows.push(starts.map((s, k) => l.slice(s, starts[k + 1] ?? l.length).trim()));
    }
    this.emitTable(rows, headerRows);
  }

  private emitTable(rows: string[][], headerRows: number): void {
    const cells = rows.map((r) => r.map(inline));
    const header = headerRows > 0 ? cells.slice(0, headerRows).reduce((a, r) => a.map((c, k) => `${c} ${r[k] ?? ''}`.trim())) : cells[0];
    this.out.push(table(header ?? [], cells.slice(Math.max(1, headerRows))));
  }
}

/** A list item's body: continuation lines joined; nested lists converted recursively. */
function itemBody(body: string, indent: string, depth: number): string {
  const [first = '', ...rest] = body.split('\n');
  const nestedAt = rest.findIndex((l) => BULLET.test(l) || ENUM.test(l));
  const text = [first, ...(nestedAt < 0 ? rest : rest.slice(0, nestedAt))]
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ');
  if (nestedAt < 0) return inline(text);
  const nested = rstToMarkdown(rest.slice(nestedAt).join('\n'), depth)
    .trim()
    .split('\n')
    .map((l) => `${indent}${l}`)
    .join('\n');
  return `${inline(text)}\n${nested}`;
}

const CODE_DIRECTIVES = new Set(['code', 'code-block', 'sourcecode', 'highlight']);
const ADMONITIONS = new Set(['note', 'warning', 'tip', 'important', 'caution', 'danger', 'attention', 'hint', 'error', 'admonition', 'seealso']);

function directive(name: string, arg: string, options: Map<string, string>, content: string, depth: number): string {
  if (CODE_DIRECTIVES.has(name)) return fence(content, arg.split(/\s+/)[0] ?? '');
  if (name === 'image' || name === 'figure')
    return blocks([`![${options.get('alt') ?? ''}](${arg})`, content ? rstToMarkdown(content, depth) : undefined]).trim();
  if (ADMONITIONS.has(name)) {
    const label = name === 'admonition' ? arg : `${name[0]?.toUpperCase()}${name.slice(1)}`;
    const body = rstToMarkdown([name === 'admonition' ? '' : arg, content].join('\n'), depth).trim();
    return `> **${label}:** ${body.replace(/\n/g, '\n> ')}`;
  }
  if (name === 'math') return `$$\n${content || arg}\n$$`;
  return content ? rstToMarkdown(content, depth).trim() : arg;
}

/** Inline markup: literals, links, roles and references (literal text is left untouched). */
export function inline(text: string): string {
  return text
    .split(/(``.+?``)/)
    .map((part, k) => (k % 2 === 1 ? `\`${part.slice(2, -2)}\`` : markup(part)))
    .join('');
}

const CODE = '\u0000';

function markup(text: string): string {
  return text
    .replace(/`([^`<]+?)\s*<([^>]+)>`__?/g, (_m, label: string, url: string) => `[${label.trim()}](${url})`)
    .replace(/:[\w:+-]+:`([^`]+)`/g, (_m, t: string) => `${CODE}${t.replace(/^.*<(.+)>$/, '$1')}${CODE}`)
    .replace(/`([^`]+)`_{1,2}/g, '$1')
    .replace(/\b(\w+)_\b(?!\w)/g, '$1')
    .replace(/`([^`]+)`/g, '*$1*')
    .replaceAll(CODE, '`');
}
