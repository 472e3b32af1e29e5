/**
 * Edits people make to text they paste, applied deterministically: word substitutions, insertions, deletions,
 * typos, case and punctuation changes, and reordered sentences. Used by the evaluation set of variants.ts.
 */

/** Split prose into sentences (a full stop, question or exclamation mark followed by a capital). */
export const sentences = (text: string): string[] => text.split(/(?<=[.!?])\s+(?=[A-Z])/).filter((s) => s.trim());

/** Words a person might write instead of, or beside, the source's words. */
const OWN_WORDS = [
  'notably',
  'overall',
  'however',
  'markedly',
  'these',
  'results',
  'further',
  'significant',
  'patients',
  'observed',
  'clearly',
  'also',
  'really',
  'basically',
  'findings',
  'study',
  'shows',
  'which',
  'very',
  'important',
];

const pick = <T>(items: readonly T[], rand: () => number): T => items[Math.floor(rand() * items.length)]!;

/** A typo: two inner letters swapped, or one dropped. */
function typo(word: string, rand: () => number): string {
  if (word.length < 4) return word;
  const at = 1 + Math.floor(rand() * (word.length - 2));
  if (rand() < 0.5) return word.slice(0, at) + word.slice(at + 1);
  return word.slice(0, at - 1) + word[at] + word[at - 1] + word.slice(at + 1);
}

/** A case or punctuation change, which normalisation should see through. */
function surface(word: string, rand: () => number): string {
  const roll = rand();
  if (roll < 0.35) return word.toUpperCase();
  if (roll < 0.7) return /[,;:]$/.test(word) ? word.slice(0, -1) : `${word},`;
  return word[0] ? word[0].toUpperCase() + word.slice(1) : word;
}

/** One edit of one word: substitution, insertion after it, deletion, typo, or a case/punctuation change. */
function editWord(word: string, rand: () => number): string[] {
  const roll = rand();
  if (roll < 0.35) return [pick(OWN_WORDS, rand)];
  if (roll < 0.5) return [word, pick(OWN_WORDS, rand)];
  if (roll < 0.65) return [];
  if (roll < 0.85) return [typo(word, rand)];
  return [surface(word, rand)];
}

/** Edit about `rate` of the words of a text. */
export function editWords(text: string, rate: number, rand: () => number): string {
  return text
    .split(/\s+/)
    .flatMap((word) => (word && rand() < rate ? editWord(word, rand) : [word]))
    .join(' ');
}

/** Swap neighbouring sentences (each pair with probability one half). */
export function reorderSentences(parts: string[], rand: () => number): string[] {
  const out = [...parts];
  for (let index = 0; index + 1 < out.length; index += 2) if (rand() < 0.5) [out[index], out[index + 1]] = [out[index + 1]!, out[index]!];
  return out;
}

/** Replace a share of the words with other words (a rewrite that keeps the length). */
export function substituteWords(text: string, share: number, rand: () => number): string {
  return text
    .split(/\s+/)
    .map((word) => (rand() < share ? pick(OWN_WORDS, rand) : word))
    .join(' ');
}

/** The same words in each sentence, shuffled: the vocabulary of the source without its text. */
export function shuffleWithinSentences(text: string, rand: () => number): string {
  return sentences(text)
    .map((sentence) => {
      const words = sentence.replace(/[.!?]$/, '').split(/\s+/);
      for (let index = words.length - 1; index > 0; index--) {
        const other = Math.floor(rand() * (index + 1));
        [words[index], words[other]] = [words[other]!, words[index]!];
      }
      return `${words.join(' ')}.`;
    })
    .join(' ');
}

/** A contiguous run of whole sentences covering about `share` of the text, from a random place. */
export function sentenceSpan(text: string, share: number, rand: () => number): string {
  const parts = sentences(text);
  const count = Math.max(1, Math.round(parts.length * share));
  const start = Math.floor(rand() * (parts.length - count + 1));
  return parts.slice(start, start + count).join(' ');
}
