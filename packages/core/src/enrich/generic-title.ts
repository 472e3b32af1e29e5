/**
 * Which section titles get an AI summary (spec: Section.summary, "sections with generic or short titles").
 *
 * A title is generic when a reader of scan results learns little about the section from it. The rule, applied
 * to the title with surrounding space and trailing `:`/`.` removed, is that ANY of these holds:
 *  1. it is empty, or numbering only (`1`, `1.2`, `2.3.1.`, `IV`, `B)`);
 *  2. it is short: at most 3 words, or fewer than 12 characters, once leading numbering (`1.2 `, `IV. `, `(a) `)
 *     is removed — "Revenue", "Costs and risks" and "Q3 results" all qualify;
 *  3. it is a generic word or phrase, optionally numbered: Introduction, Overview, Summary, Background, Details,
 *     Notes, Misc, Untitled, Section, Contents, Conclusion, Appendix, … (GENERIC_PHRASES);
 *  4. it is a placeholder and a number or letter: Part 2, Section 3, Chapter IV, Slide 5, Page 6, Sheet1, Table 2;
 *  5. it is the document's file name, alone or as `<name> (part n)` (the synthetic sections of documents without
 *     headings are titled so: see ingest/sectioner.ts).
 * Rules 3–5 only matter for titles of four words or more (rule 2 already catches shorter ones); they are kept
 * explicit so the rule reads as the spec states it and survives a change of the length limits.
 */

/** Titles (lower case, numbering removed) that say nothing about their section. */
const GENERIC_PHRASES = new Set([
  'introduction',
  'intro',
  'overview',
  'summary',
  'executive summary',
  'background',
  'details',
  'detail',
  'notes',
  'note',
  'misc',
  'miscellaneous',
  'other',
  'others',
  'general',
  'info',
  'information',
  'untitled',
  'untitled section',
  'section',
  'part',
  'chapter',
  'contents',
  'table of contents',
  'conclusion',
  'conclusions',
  'appendix',
  'appendices',
  'preface',
  'abstract',
  'document',
  'text',
  'content',
  'main',
  'body',
  'description',
  'discussion',
  'results',
  'references',
]);

/** A placeholder word followed by a number or a letter: "Part 2", "Slide 12", "Sheet1", "Appendix B". */
const NUMBERED_PLACEHOLDER =
  /^(?:part|section|chapter|slide|page|sheet|table|figure|fig\.?|appendix|annex|exhibit|schedule|item|step|unit|lesson|module)\s*(?:\d+(?:\.\d+)*|[ivxlcdm]+|[a-z])$/i;
/** Numbering only: "1", "1.2", "2.3.1.", "IV", "B)", "(a)". */
const NUMBERING_ONLY = /^\(?(?:\d+(?:[.-]\d+)*|[ivxlcdm]+|[a-z])[.)]?$/i;
/** Numbering in front of a title: "1.2 ", "3. ", "IV. ", "B) ", "(a) ". */
const LEADING_NUMBERING = /^(?:\d+(?:\.\d+)*\.?|(?:[ivxlcdm]+|[a-z])[.)]|\(\w{1,4}\))\s+/i;
const SYNTHETIC_PART = /\s*\(part \d+\)$/i;

const MAX_SHORT_WORDS = 3;
const MIN_GOOD_CHARS = 12;

const normalize = (s: string): string =>
  s
    .trim()
    .replace(/\s+/g, ' ')
    .replace(/[\s:.]+$/, '');
const fileStem = (filename: string): string => normalize(filename.replace(/\.[^.]+$/, '')).toLowerCase();

/** True when the section title is generic or short, so the section should get an AI summary (rules above). */
export function isGenericTitle(title: string, filename = ''): boolean {
  const full = normalize(title);
  if (full === '' || NUMBERING_ONLY.test(full)) return true;
  const bare = full.replace(LEADING_NUMBERING, '');
  const words = bare.split(' ').filter((w) => /[\p{L}\p{N}]/u.test(w));
  if (words.length <= MAX_SHORT_WORDS || bare.length < MIN_GOOD_CHARS) return true;
  const lower = bare.toLowerCase();
  if (GENERIC_PHRASES.has(lower) || NUMBERED_PLACEHOLDER.test(bare)) return true;
  const stem = filename ? fileStem(filename) : '';
  return stem !== '' && (lower === stem || lower.replace(SYNTHETIC_PART, '') === stem);
}
