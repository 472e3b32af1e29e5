/**
 * What near-duplicate detection reads of a document's Markdown: its content words, where each one is in the
 * Markdown, and the fingerprints it is found by in the persisted index.
 *
 * Words are normalised so that a PDF, a DOCX, a web page and a Markdown file of one text read the same: Markdown
 * link targets, image references and HTML tags are dropped, case and accents folded, words hyphenated across a
 * line break joined, and page-number lines and running headers (short lines repeated three times or more)
 * skipped. Stop words are left out and the rest lightly stemmed, so that the edits people make when they paste
 * ("the" for "a", "classes" for "class", a comma added) do not break what matches.
 *
 * Every run of SHINGLE_WORDS content words is a shingle, hashed to 32 bits. Candidates come from content-defined
 * sampling (the MinHash family's "mod-sampling" sketch): a shingle is a fingerprint when its mixed hash is 0
 * modulo SAMPLE_MODULUS. The choice depends on the shingle alone, so when A's text is contained in B's, every
 * fingerprint of A is a fingerprint of B — whatever the size ratio. Short texts index every shingle.
 */

/** Content words per shingle: three survive light editing far better than four words with stop words. */
export const SHINGLE_WORDS = 3;
/** One shingle in this many is a fingerprint (a 250-word answer has about 130 content words, 32 fingerprints). */
export const SAMPLE_MODULUS = 4;
/** Documents with at most this many shingles index every one, so that short texts still find each other. */
export const INDEX_ALL_BELOW = 48;
/** Words read from one document: bounds time and memory for huge files (about 2 MB of text). */
export const MAX_WORDS = 300_000;

/** English function words: left out of shingles and alignment (edits swap them freely; they carry no text). */
const STOP_WORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by can could did do does ' +
    'doing down during each few for from further had has have having he her here hers herself him himself his how i if in into is it its itself ' +
    'just me more most my myself no nor not now of off on once only or other our ours ourselves out over own same she should so some such than ' +
    'that the their theirs them themselves then there these they this those through to too under until up very was we were what when where which ' +
    'while who whom why will with would you your yours yourself yourselves also may might must shall upon thus hence whereas whether yet via per'
  ).split(' '),
);

/** Murmur3's 32-bit finaliser: spreads the bits of a hash. */
export function mix32(value: number): number {
  let hash = value >>> 0;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/** FNV-1a of a string, 32 bits. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Two hashes combined in order (a shingle or seed of consecutive words). */
export const combine = (left: number, right: number): number => mix32((Math.imul(left, 0x9e3779b1) ^ right) >>> 0);

/** A light stemmer: plural, -ing, -ed and a final e folded, so inflected forms of one word match. */
export function stem(word: string): string {
  let out = word;
  if (out.length > 4 && out.endsWith('ies')) out = `${out.slice(0, -3)}y`;
  else if (out.length > 3 && out.endsWith('s') && !out.endsWith('ss')) out = out.slice(0, -1);
  if (out.length > 6 && out.endsWith('ing')) out = out.slice(0, -3);
  else if (out.length > 5 && out.endsWith('ed')) out = out.slice(0, -2);
  if (out.length > 4 && out.endsWith('e')) out = out.slice(0, -1);
  return out;
}

const blank = (match: string): string => match.replace(/[^\n]/g, ' ');
const PAGE_NUMBER_LINE = /^[ \t]*(?:[-–—]?[ \t]*(?:page|p\.|seite)?[ \t]*\d{1,4}(?:[ \t]*(?:of|\/)[ \t]*\d{1,4})?[ \t]*[-–—]?)[ \t]*$/gim;

/** Markdown with link targets, images, tags, page numbers and running headers blanked out (offsets kept). */
export function blankArtefacts(markdown: string): string {
  const text = markdown
    .replace(/!\[[^\]]*\]\([^)]*\)/g, blank)
    .replace(/\]\([^)]*\)/g, (match) => `]${blank(match.slice(1))}`)
    .replace(/<[^>\n]{0,200}>/g, blank)
    .replace(PAGE_NUMBER_LINE, blank);
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) if (line.trim().length >= 8 && line.length <= 120) counts.set(line.trim(), (counts.get(line.trim()) ?? 0) + 1);
  const repeated = new Set([...counts].filter(([, count]) => count >= 3).map(([line]) => line));
  if (repeated.size === 0) return text;
  return text
    .split('\n')
    .map((line) => (repeated.has(line.trim()) ? blank(line) : line))
    .join('\n');
}

/** A document as detection reads it: content words (hashed stems) with their character spans in the Markdown. */
export interface DuplicateProfile {
  /** Hash of each content word's stem, in reading order. */
  words: Uint32Array;
  /** Where each content word starts and ends in the Markdown (UTF-16 offsets, end exclusive). */
  starts: Uint32Array;
  ends: Uint32Array;
  /** The distinct shingle hashes, sorted ascending. */
  shingles: Uint32Array;
}

const NON_ASCII = /[\u0080-\uffff]/;
const HYPHEN = 0x2d;

/** Normalised words of Markdown with their spans; words hyphenated across a line break are joined. */
export function normalisedTokens(markdown: string): { word: string; start: number; end: number }[] {
  const text = blankArtefacts(markdown);
  const tokens: { word: string; start: number; end: number }[] = [];
  for (const match of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    const start = match.index;
    const lower = match[0].toLowerCase();
    // Only non-ASCII words can carry accents to fold (the common case skips NFKD).
    const word = NON_ASCII.test(lower) ? lower.normalize('NFKD').replace(/\p{M}/gu, '') : lower;
    const previous = tokens.at(-1);
    if (previous && text.charCodeAt(previous.end) === HYPHEN && /^[a-z]/.test(word) && /^-[ \t]*\r?\n[ \t]*$/.test(text.slice(previous.end, start))) {
      previous.word += word;
      previous.end = start + match[0].length;
      continue;
    }
    if (tokens.length >= MAX_WORDS) break;
    tokens.push({ word, start, end: start + match[0].length });
  }
  return tokens;
}

/** Normalised words of Markdown (every word, stop words included). */
export const normalisedWords = (markdown: string): string[] => normalisedTokens(markdown).map((token) => token.word);

/** The detection profile of a Markdown text. */
export function duplicateProfile(markdown: string): DuplicateProfile {
  const content = normalisedTokens(markdown).filter((token) => !STOP_WORDS.has(token.word));
  const words = Uint32Array.from(content, (token) => fnv1a(stem(token.word)));
  const hashes = new Set<number>();
  if (words.length > 0 && words.length < SHINGLE_WORDS) hashes.add(words.reduce((hash, word) => combine(hash, word), 0));
  for (let start = 0; start + SHINGLE_WORDS <= words.length; start++) {
    let hash = words[start]!;
    for (let offset = 1; offset < SHINGLE_WORDS; offset++) hash = combine(hash, words[start + offset]!);
    hashes.add(hash);
  }
  return {
    words,
    starts: Uint32Array.from(content, (token) => token.start),
    ends: Uint32Array.from(content, (token) => token.end),
    shingles: Uint32Array.from(hashes).sort(),
  };
}

/** What a document is found by in the fingerprint index (sorted): every shingle of a short text, else a sample. */
export function indexedFingerprints(profile: DuplicateProfile): number[] {
  if (profile.shingles.length <= INDEX_ALL_BELOW) return [...profile.shingles];
  const out: number[] = [];
  for (const hash of profile.shingles) if (mix32(hash) % SAMPLE_MODULUS === 0) out.push(hash);
  return out;
}

/** |A ∩ B| of two sorted sets. */
export function intersectionSize(left: ArrayLike<number>, right: ArrayLike<number>): number {
  let shared = 0;
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) {
    const a = left[i]!;
    const b = right[j]!;
    if (a === b) {
      shared++;
      i++;
      j++;
    } else if (a < b) i++;
    else j++;
  }
  return shared;
}
