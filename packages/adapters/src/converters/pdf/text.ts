/**
 * Join the lines of one paragraph. A line ending in a hyphen after a letter, followed by a lowercase letter,
 * is a word broken at the line end: the hyphen goes. This also joins the rare compound broken at its own
 * hyphen ("chat-" + "optimized"); without a dictionary the two cannot be told apart, and broken words are
 * far more common in justified text.
 */
export function joinLines(lines: string[]): string {
  let out = '';
  for (const raw of lines) {
    const line = raw.trim();
    if (!line) continue;
    if (!out) out = line;
    else if (/\p{L}\u00AD$/u.test(out)) out = out.slice(0, -1) + line;
    else if (/\p{Ll}-$/u.test(out) && /^\p{Ll}/u.test(line)) out = out.slice(0, -1) + line;
    else out = `${out} ${line}`;
  }
  return out.replace(/\u00AD/g, '');
}

/** Characters that would turn the start of a paragraph into Markdown structure. */
const LEADING_MARKUP = /^([#>]|[-*+](?=\s)|\d+[.)](?=\s)|={3,}|-{3,}|`{3,}|~{3,})/;

/** Plain text made safe to stand as a Markdown paragraph: its start is escaped, never read as structure. */
export const escapeLeading = (text: string): string => text.replace(LEADING_MARKUP, '\\$1');

/** Text made safe for a GFM table cell. */
export const escapeCell = (text: string): string => text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

/** Only upper-case letters (at least four of them), as in "VITAL SIGNS". */
export function isAllCaps(text: string): boolean {
  const letters = text.replace(/[^\p{L}]/gu, '');
  return letters.length >= 4 && letters === letters.toUpperCase() && letters !== letters.toLowerCase();
}
