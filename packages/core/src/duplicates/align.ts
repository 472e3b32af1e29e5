/**
 * Verification of a candidate pair by word-level alignment: the passages two documents share, and how much of
 * each document they cover.
 *
 * Seeds are pairs of consecutive content words present in both documents. Seeds close to each other in both
 * documents (at most MAX_GAP content words apart, in the same order) chain into a passage; the words between
 * them — a substituted word, an insertion, a typo — belong to the passage, so light editing does not break it.
 * A passage is kept when it holds at least MIN_SEEDS seeds and they make up at least MIN_DENSITY of its words;
 * reordered sentences simply make separate passages. The coverage of a document is the share of its content
 * words inside shared passages: a copy, a translation to another format or an edited copy covers most of the
 * other; an excerpt covers most of itself; texts on one topic share a phrase here and there, not passages.
 */
import type { DuplicateProfile } from './fingerprints.ts';
import { combine } from './fingerprints.ts';

/** Content words allowed between two seeds of one passage (in either document). */
export const MAX_GAP = 6;
/** Seeds a passage needs: below this, a shared phrase is a turn of speech, not a copied passage. */
export const MIN_SEEDS = 3;
/** The share of a passage's words that must be matched: keeps scattered topical words from chaining. */
export const MIN_DENSITY = 0.5;
/** Positions of one seed followed in the other document (a repeated phrase beyond this is boilerplate). */
const MAX_OCCURRENCES = 8;
/** Chains followed at once (bounds the work on repetitive text). */
const MAX_ACTIVE = 64;

/** A shared passage as content-word ranges [start, end) in the left and right documents. */
export interface WordPassage {
  left: [number, number];
  right: [number, number];
  /** Seeds (matched word pairs) in the passage. */
  seeds: number;
}

export interface Alignment {
  /** Share of the left document's content words in shared passages. */
  leftCoverage: number;
  rightCoverage: number;
  /** The shared passages, in the left document's order. */
  passages: WordPassage[];
}

interface Chain {
  leftStart: number;
  leftEnd: number;
  rightStart: number;
  rightEnd: number;
  seeds: number;
}

const seedHashes = (words: Uint32Array): Uint32Array => {
  const seeds = new Uint32Array(Math.max(0, words.length - 1));
  for (let index = 0; index + 1 < words.length; index++) seeds[index] = combine(words[index]!, words[index + 1]!);
  return seeds;
};

/** Where each seed of a document occurs (seeds occurring too often are left out). */
function seedPositions(seeds: Uint32Array): Map<number, number[]> {
  const positions = new Map<number, number[]>();
  for (let index = 0; index < seeds.length; index++) {
    const list = positions.get(seeds[index]!);
    if (!list) positions.set(seeds[index]!, [index]);
    else if (list.length <= MAX_OCCURRENCES) list.push(index);
  }
  for (const [seed, list] of positions) if (list.length > MAX_OCCURRENCES) positions.delete(seed);
  return positions;
}

/** The chain a seed at (i, j) continues: the nearest one ending just before it in both documents. */
function continuedChain(active: Chain[], i: number, j: number): Chain | undefined {
  let best: Chain | undefined;
  let bestCost = Number.POSITIVE_INFINITY;
  for (const chain of active) {
    const stepLeft = i - chain.leftEnd;
    const stepRight = j - chain.rightEnd;
    if (stepLeft < 1 || stepLeft > MAX_GAP || stepRight < 1 || stepRight > MAX_GAP) continue;
    const cost = stepLeft + stepRight + Math.abs(stepLeft - stepRight);
    if (cost < bestCost) [best, bestCost] = [chain, cost];
  }
  return best;
}

/** Chain the seeds the two documents share, in the left document's order. */
function chainSeeds(leftSeeds: Uint32Array, rightPositions: Map<number, number[]>): Chain[] {
  const done: Chain[] = [];
  let active: Chain[] = [];
  for (let i = 0; i < leftSeeds.length; i++) {
    const occurrences = rightPositions.get(leftSeeds[i]!);
    if (!occurrences) continue;
    if (active.some((chain) => i - chain.leftEnd > MAX_GAP)) {
      for (const chain of active) if (i - chain.leftEnd > MAX_GAP) done.push(chain);
      active = active.filter((chain) => i - chain.leftEnd <= MAX_GAP);
    }
    const extended = occurrences.map((j) => [j, continuedChain(active, i, j)] as const);
    for (const [j, chain] of extended) {
      if (chain && chain.leftEnd < i) Object.assign(chain, { leftEnd: i, rightEnd: j, seeds: chain.seeds + 1 });
      else if (!chain) active.push({ leftStart: i, leftEnd: i, rightStart: j, rightEnd: j, seeds: 1 });
    }
    if (active.length > MAX_ACTIVE) done.push(...active.splice(0, active.length - MAX_ACTIVE));
  }
  return [...done, ...active];
}

/** Words of [start, end) ranges counted once. */
function unionLength(ranges: [number, number][]): number {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let reached = 0;
  for (const [start, end] of sorted) {
    const from = Math.max(start, reached);
    if (end > from) total += end - from;
    reached = Math.max(reached, end);
  }
  return total;
}

/** Align two profiles: the passages they share and the coverage of each. */
export function alignProfiles(left: DuplicateProfile, right: DuplicateProfile): Alignment {
  const chains = chainSeeds(seedHashes(left.words), seedPositions(seedHashes(right.words)));
  const passages: WordPassage[] = [];
  for (const chain of chains) {
    const length = chain.leftEnd + 2 - chain.leftStart;
    const whole = length === left.words.length || chain.rightEnd + 2 - chain.rightStart === right.words.length;
    if ((chain.seeds < MIN_SEEDS && !whole) || (chain.seeds + 1) / length < MIN_DENSITY) continue;
    passages.push({ left: [chain.leftStart, chain.leftEnd + 2], right: [chain.rightStart, chain.rightEnd + 2], seeds: chain.seeds });
  }
  passages.sort((a, b) => a.left[0] - b.left[0]);
  return {
    leftCoverage: left.words.length ? unionLength(passages.map((p) => p.left)) / left.words.length : 0,
    rightCoverage: right.words.length ? unionLength(passages.map((p) => p.right)) / right.words.length : 0,
    passages,
  };
}
