/** A word of a text and where it sits. */
interface Word {
  norm: string;
  start: number;
  end: number;
}

const WORD = /[\p{L}\p{N}]+/gu;

const fold = (word: string): string => word.toLowerCase().normalize('NFKD').replace(/\p{M}/gu, '');

function words(text: string): Word[] {
  return [...text.matchAll(WORD)].map((match) => ({ norm: fold(match[0]), start: match.index, end: match.index + match[0].length }));
}

/** Share of a quote's words that must match a window of the section for a near-verbatim quote to be kept. */
export const MIN_QUOTE_OVERLAP = 0.8;
/** Quote words × section words above which only exact matches are tried (bounds the work per claim). */
const MAX_FUZZY_WORK = 4_000_000;

/** The multiset overlap of a quote with a window, as a share of the longer of the two. */
function overlap(quote: Map<string, number>, quoteLength: number, window: Word[]): number {
  const left = new Map(quote);
  let hits = 0;
  for (const word of window) {
    const count = left.get(word.norm) ?? 0;
    if (count > 0) {
      hits++;
      left.set(word.norm, count - 1);
    }
  }
  return hits / Math.max(quoteLength, window.length);
}

/** The best window of the section's words for the quote, sizes n-1..n+1, when it overlaps enough. */
function bestWindow(sectionWords: Word[], quoteWords: Word[]): { start: number; end: number } | null {
  const quote = new Map<string, number>();
  for (const word of quoteWords) quote.set(word.norm, (quote.get(word.norm) ?? 0) + 1);
  let best: { score: number; start: number; end: number } | null = null;
  for (const size of [quoteWords.length, quoteWords.length - 1, quoteWords.length + 1]) {
    if (size < 1 || size > sectionWords.length) continue;
    for (let first = 0; first + size <= sectionWords.length; first++) {
      if (!quote.has(sectionWords[first]!.norm)) continue; // a kept span starts on a quoted word
      const window = sectionWords.slice(first, first + size);
      // Ties go to the window that ends where the quote ends too.
      const score = overlap(quote, quoteWords.length, window) + (window.at(-1)!.norm === quoteWords.at(-1)!.norm ? 1e-6 : 0);
      if (!best || score > best.score) best = { score, start: window[0]!.start, end: window.at(-1)!.end };
    }
  }
  return best && best.score >= MIN_QUOTE_OVERLAP ? best : null;
}

/**
 * The passage of `section` that a model's quote stands for: the exact span when the quote occurs word for word
 * (case, accents, punctuation and spacing aside), else the span of the section whose words match at least
 * MIN_QUOTE_OVERLAP of the quote's (a near-verbatim quote), else null — a quote the section does not contain is
 * never passed on as a source.
 */
export function alignQuote(section: string, quote: string | null | undefined): string | null {
  const quoteWords = words(quote ?? '');
  if (quoteWords.length === 0) return null;
  const sectionWords = words(section);
  const target = quoteWords.map((word) => word.norm);
  const closing = /[.!?…]$/.test((quote ?? '').trim());
  for (let first = 0; first + target.length <= sectionWords.length; first++) {
    if (target.every((norm, offset) => sectionWords[first + offset]!.norm === norm)) {
      return span(section, sectionWords[first]!.start, sectionWords[first + target.length - 1]!.end, closing);
    }
  }
  if (quoteWords.length * sectionWords.length > MAX_FUZZY_WORK) return null;
  const window = bestWindow(sectionWords, quoteWords);
  return window ? span(section, window.start, window.end, closing) : null;
}

/** The section text between two offsets, with the sentence's closing mark when the quote ended on one too. */
function span(section: string, start: number, end: number, closing: boolean): string {
  return section.slice(start, closing && /[.!?…]/.test(section[end] ?? '') ? end + 1 : end);
}
