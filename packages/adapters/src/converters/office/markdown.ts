/** Markdown building blocks shared by the office converters. */

/** Rows per Markdown table before it is split (each part repeats the header so a chunk stays readable). */
export const TABLE_ROWS_PER_PART = 200;

/** A table cell: pipes escaped, line breaks kept as `<br>`, surrounding space trimmed. */
export const cell = (s: string): string =>
  s
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/\r\n?|\n/g, '<br>')
    .replace(/\s+/g, ' ')
    .trim();

/** A GFM table; rows are padded to the widest row. An empty header cell becomes a column letter-free blank. */
export function table(header: string[], rows: string[][]): string {
  const width = rows.reduce((widest, r) => Math.max(widest, r.length), Math.max(header.length, 1));
  const line = (r: string[]): string => `| ${Array.from({ length: width }, (_, i) => cell(r[i] ?? '')).join(' | ')} |`;
  return [line(header), `|${' --- |'.repeat(width)}`, ...rows.map(line)].join('\n');
}

/** One or more tables of at most `perPart` rows each, every part repeating the header. */
export function splitTable(header: string[], rows: string[][], perPart = TABLE_ROWS_PER_PART): string[] {
  if (rows.length === 0) return [table(header, [])];
  const parts: string[] = [];
  for (let i = 0; i < rows.length; i += perPart) parts.push(table(header, rows.slice(i, i + perPart)));
  return parts;
}

/** A fenced code block whose fence is longer than any backtick run inside the code. */
export function fence(code: string, lang = ''): string {
  let longest = 2;
  for (const run of code.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  const f = '`'.repeat(longest + 1);
  return `${f}${lang}\n${code.replace(/\n+$/, '')}\n${f}`;
}

/** Characters that would turn a line of plain text into Markdown structure when they start it. */
const LEADING_MARKUP = /^(\s{0,3})([#>]|[-*+] |\d+[.)] |={3,}|-{3,}|`{3,}|~{3,})/;

/** Plain text made safe to place as a Markdown paragraph (no accidental headings, lists or HTML). */
export const plain = (s: string): string =>
  s
    .split('\n')
    .map((l) => l.replace(/</g, '&lt;').replace(LEADING_MARKUP, (_m, ws: string, mark: string) => `${ws}\\${mark}`))
    .join('\n');

/** Text for a heading line: one line, no trailing hashes. */
export const headingText = (s: string): string => s.replace(/\s+/g, ' ').replace(/#+$/, '').trim();

/** Join blocks with one blank line and end with a newline. */
export const blocks = (parts: (string | undefined)[]): string =>
  `${parts
    .filter((p): p is string => p !== undefined && p.trim() !== '')
    .join('\n\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;

/** Rows with no content dropped and trailing empty columns trimmed. */
export function compactGrid(rows: string[][]): string[][] {
  const kept = rows.filter((r) => r.some((c) => c.trim() !== ''));
  // A loop, not Math.max(...rows): spreading a million rows into arguments overflows the call stack.
  const width = kept.reduce(
    (widest, r) =>
      Math.max(
        widest,
        r.reduce((w, c, i) => (c.trim() !== '' ? i + 1 : w), 0),
      ),
    0,
  );
  return kept.map((r) => Array.from({ length: width }, (_, i) => r[i] ?? ''));
}

/** A `## title` section holding a grid as tables: first row is the header, split every TABLE_ROWS_PER_PART rows. */
export function gridSection(title: string | undefined, rows: string[][]): string {
  const grid = compactGrid(rows);
  const heading = title === undefined ? undefined : `## ${headingText(title) || 'Sheet'}`;
  const [header, ...body] = grid;
  if (!header) return blocks([heading, '*(empty)*']);
  return blocks([heading, ...splitTable(header, body)]);
}
