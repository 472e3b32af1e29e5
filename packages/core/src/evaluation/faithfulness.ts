import type { z } from 'zod';
import type * as responses from '../responses.ts';
/**
 * A model-free faithfulness heuristic for research answers (issue 38). It does not judge truth: it reports how much
 * of an answer is tied to its sources, in two shares:
 * - `citedSentenceShare`: answer sentences that carry at least one citation marker (`[S1]`), over all sentences
 *   with at least three key terms (headings and short connective lines are not claims);
 * - `supportedCitationShare`: citations whose cited passage shares at least half of the citing sentence's key
 *   terms (at least two when the sentence has two or more), over all resolvable citations.
 * Key terms are lower-cased words of three or more letters that are not common English function words.
 */

/** What a cited marker resolves to: the passage text of the source. */
export interface CitedPassage {
  marker: string;
  content: string;
}

/** The two shares (null when nothing was there to measure) and the counts behind them. */
export type Faithfulness = z.output<typeof responses.faithfulness>;

const STOPWORDS = new Set(
  (
    'the and for are but not you all any can had her was one our out has have him his how its may new now see two who did ' +
    'its let say she too use that with this from they will would there their what about which when make like time just know ' +
    'take into year your some could them than then these other only also more most such been were being does each over ' +
    'both between after before while where because very much many same those under shall should might must upon within'
  ).split(' '),
);

const CITATION = /\[\s*(S?\d+(?:\s*[,;]\s*S?\d+)*)\s*\]/gi;

/** Lower-cased key terms of a text (letters and digits, three characters or more, no function words). */
export function keyTerms(text: string): Set<string> {
  const words =
    text
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .match(/[a-z0-9]{3,}/g) ?? [];
  return new Set(words.filter((w) => !STOPWORDS.has(w) && !/^s?\d+$/.test(w)));
}

/** Sentences of an answer: split at . ! ? followed by a space and not a citation (`Done. [S1]` is one sentence), and at line breaks. */
export function sentencesOf(answer: string): string[] {
  return answer
    .split(/\n+|(?<=[.!?])\s+(?=[^\s[])/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** The markers a sentence cites (`S3` for `[3]` or `[S3]`), without duplicates. */
function markersOf(sentence: string): string[] {
  const found = new Set<string>();
  for (const m of sentence.matchAll(CITATION)) {
    for (const part of (m[1] ?? '').split(/[,;]/)) found.add(`S${Number(part.trim().replace(/^s/i, ''))}`);
  }
  return [...found];
}

/** Whether a passage shares enough of the sentence's key terms to plausibly support it. */
function supports(sentenceTerms: Set<string>, passage: string): boolean {
  if (sentenceTerms.size === 0) return false;
  const passageTerms = keyTerms(passage);
  const shared = [...sentenceTerms].filter((t) => passageTerms.has(t)).length;
  return shared >= Math.min(2, sentenceTerms.size) && shared >= sentenceTerms.size / 2;
}

/** Measure an answer against the passages its markers cite (markers with no passage are not counted as citations). */
export function faithfulness(answer: string, passages: readonly CitedPassage[]): Faithfulness {
  const byMarker = new Map(passages.map((p) => [p.marker, p.content]));
  let sentences = 0;
  let citedSentences = 0;
  let citations = 0;
  let supported = 0;
  for (const sentence of sentencesOf(answer)) {
    const terms = keyTerms(sentence.replace(CITATION, ' '));
    if (terms.size < 3) continue;
    sentences++;
    const cited = markersOf(sentence).filter((m) => byMarker.has(m));
    if (cited.length > 0) citedSentences++;
    for (const marker of cited) {
      citations++;
      if (supports(terms, byMarker.get(marker) ?? '')) supported++;
    }
  }
  return {
    sentences,
    citedSentences,
    citedSentenceShare: sentences ? citedSentences / sentences : null,
    citations,
    supportedCitations: supported,
    supportedCitationShare: citations ? supported / citations : null,
  };
}
