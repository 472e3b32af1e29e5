/**
 * Sections from the heading hierarchy of Markdown, found by a linear line scan (ATX `#` headings and setext
 * `===`/`---` underlines, ignoring fenced code). A full Markdown parse is not needed to find headings, and its
 * memory grows many times the input on pathological files (a 12 MB line, 100,000 headings), so it is not used.
 */

/** A section before it gets ids. */
export interface DraftSection {
  title: string;
  level: number;
  position: number;
  start: number;
  end: number;
  summary: string;
}

interface Heading {
  title: string;
  level: number;
  /** Offset of the heading's first line. */
  start: number;
}

/** Most sections a document is cut into; deeper heading levels are merged into their parents beyond it. */
export const MAX_SECTIONS = 5000;
/** Longest synthetic section cut from a document that has no headings (characters). */
const SYNTHETIC_SECTION_CHARS = 4000;
const SUMMARY_CHARS = 300;
/** Plain text examined for a summary: enough for SUMMARY_CHARS after markup is stripped. */
const SUMMARY_WINDOW = 4000;

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const BLOCK_START = /^ {0,3}([>*+-]|\d+[.)]|#|`{3}|~{3}|\||<)/;

/** Markdown inline and block markup reduced to plain words. */
export function plainText(md: string): string {
  return (
    md
      .replace(/^ {0,3}(`{3,}|~{3,}).*$/gm, ' ')
      .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/^ {0,3}(#{1,6}|>|[*+-]|\d+[.)])[ \t]+/gm, '')
      .replace(/^ {0,3}\|?[ \t]*:?-{3,}.*$/gm, ' ')
      .replace(/[*`~]+/g, '')
      // `_` is emphasis only at a word's edge (CommonMark); inside a word (`test_mskanji`) it is part of the name.
      .replace(/(?<![\p{L}\p{N}_])_+|_+(?![\p{L}\p{N}_])/gu, '')
      .replace(/[|<>]+/g, ' ')
      .replace(/\\([\\`*_{}[\]()#+\-.!|>])/g, '$1')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/** The first sentences of a text, up to SUMMARY_CHARS, cut at a sentence or word boundary. */
export function extractiveSummary(markdown: string): string {
  const flat = plainText(markdown.slice(0, SUMMARY_WINDOW));
  if (flat.length <= SUMMARY_CHARS) return flat;
  const head = flat.slice(0, SUMMARY_CHARS);
  const sentenceEnd = Math.max(head.lastIndexOf('. '), head.lastIndexOf('? '), head.lastIndexOf('! '));
  if (sentenceEnd > SUMMARY_CHARS / 3) return head.slice(0, sentenceEnd + 1);
  const space = head.lastIndexOf(' ');
  return `${(space > 0 ? head.slice(0, space) : head).trim()}…`;
}

/** Every heading of the document, in order, outside fenced code. */
export function findHeadings(markdown: string): Heading[] {
  const headings: Heading[] = [];
  let fence: string | null = null;
  let prev: { text: string; start: number; paragraph: boolean } | null = null;
  let offset = 0;
  for (const line of markdown.split('\n')) {
    const start = offset;
    offset += line.length + 1;
    const f = FENCE.exec(line);
    if (fence) {
      if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length) fence = null;
      prev = null;
      continue;
    }
    if (f) {
      fence = f[1]!;
      prev = null;
      continue;
    }
    const atx = ATX.exec(line);
    const setext = SETEXT.exec(line);
    if (atx) headings.push({ title: plainText(atx[2] ?? ''), level: atx[1]!.length, start });
    else if (setext && prev?.paragraph) headings.push({ title: plainText(prev.text), level: setext[1]![0] === '=' ? 1 : 2, start: prev.start });
    const blank = line.trim() === '';
    prev = atx || setext || blank ? null : { text: line, start, paragraph: !BLOCK_START.test(line) && !/^( {4}|\t)/.test(line) };
  }
  return headings;
}

/** Keep the shallowest heading levels that fit in MAX_SECTIONS; when even level 1 does not fit, every k-th heading. */
function capHeadings(headings: Heading[]): Heading[] {
  if (headings.length <= MAX_SECTIONS) return headings;
  for (let level = 5; level >= 1; level--) {
    const kept = headings.filter((h) => h.level <= level);
    if (kept.length > 0 && kept.length <= MAX_SECTIONS) return kept;
  }
  const step = Math.ceil(headings.length / MAX_SECTIONS);
  return headings.filter((_, i) => i % step === 0);
}

const titleFromFilename = (filename: string): string => filename.replace(/\.[^.]+$/, '').trim() || 'Document';

/** Cut a headingless document at paragraph breaks into sections of at most SYNTHETIC_SECTION_CHARS. */
function syntheticSections(markdown: string, filename: string): DraftSection[] {
  const cuts = [0];
  while (markdown.length - cuts[cuts.length - 1]! > SYNTHETIC_SECTION_CHARS) {
    const from = cuts[cuts.length - 1]!;
    const window = markdown.slice(from, from + SYNTHETIC_SECTION_CHARS);
    // Prefer a paragraph break, then a line break, then a space, in the last three quarters of the window.
    const at = [window.lastIndexOf('\n\n') + 2, window.lastIndexOf('\n') + 1, window.lastIndexOf(' ') + 1].find((p) => p > SYNTHETIC_SECTION_CHARS / 4);
    cuts.push(from + (at ?? SYNTHETIC_SECTION_CHARS));
  }
  const base = titleFromFilename(filename);
  return cuts.map((start, i) => {
    const end = cuts[i + 1] ?? markdown.length;
    return {
      title: cuts.length === 1 ? base : `${base} (part ${i + 1})`,
      level: 1,
      position: i,
      start,
      end,
      summary: extractiveSummary(markdown.slice(start, end)),
    };
  });
}

/** Split Markdown into sections by its heading hierarchy; text before the first heading becomes its own section. */
export function sectionMarkdown(markdown: string, filename: string): DraftSection[] {
  if (markdown.trim() === '') return [];
  const headings = capHeadings(findHeadings(markdown));
  if (headings.length === 0) return syntheticSections(markdown, filename);
  const first = headings[0]!;
  const all = first.start > 0 && markdown.slice(0, first.start).trim() ? [{ title: titleFromFilename(filename), level: 1, start: 0 }, ...headings] : headings;
  const preamble = all.length > headings.length;
  return all.map((h, i) => {
    const start = i === 0 ? 0 : h.start;
    const end = all[i + 1]?.start ?? markdown.length;
    const slice = markdown.slice(start, end);
    const body = preamble && i === 0 ? slice : stripHeadingLines(slice);
    return { title: h.title || 'Untitled', level: h.level, position: i, start, end, summary: extractiveSummary(body) };
  });
}

/** The section body without its heading line(s). */
function stripHeadingLines(section: string): string {
  return section
    .replace(/^ {0,3}#{1,6}(?:[ \t][^\n]*)?\n?/, '')
    .replace(/^[^\n]*\n {0,3}(=+|-+)[ \t]*\n?/, (m) => (SETEXT.test(m.split('\n')[1] ?? '') ? '' : m));
}
