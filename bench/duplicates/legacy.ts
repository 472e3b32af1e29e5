/**
 * The detection of issue 14, kept verbatim for before/after figures: 4-word shingles of normalised words, a
 * 1-in-8 content-defined sample as fingerprints (every shingle for texts of at most 24), candidates when the
 * fingerprints suggest at least 0.6 of the threshold, verified by shingle containment either way.
 */
const SHINGLE_WORDS = 4;
const SAMPLE_MODULUS = 8;
const INDEX_ALL_BELOW = 24;
const ESTIMATE_SLACK = 0.6;

function mix32(value: number): number {
  let hash = value >>> 0;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function words(markdown: string): string[] {
  const text = markdown
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\]\([^)]*\)/g, ' ')
    .replace(/<[^>]{0,200}>/g, ' ')
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '');
  return text.match(/[\p{L}\p{N}]+/gu) ?? [];
}

export function legacyShingles(markdown: string): Set<number> {
  const list = words(markdown);
  const hashes = new Set<number>();
  if (list.length > 0 && list.length < SHINGLE_WORDS) hashes.add(fnv1a(list.join(' ')));
  for (let start = 0; start + SHINGLE_WORDS <= list.length; start++) hashes.add(fnv1a(list.slice(start, start + SHINGLE_WORDS).join(' ')));
  return hashes;
}

const indexed = (shingles: Set<number>): number[] =>
  shingles.size <= INDEX_ALL_BELOW ? [...shingles] : [...shingles].filter((hash) => mix32(hash) % SAMPLE_MODULUS === 0);

/** The legacy score of a pair (coverage either way), and whether the fingerprint index would have proposed it. */
export function legacyScore(left: Set<number>, right: Set<number>, threshold: number): { coverage: number; candidate: boolean } {
  let shared = 0;
  for (const hash of left) if (right.has(hash)) shared++;
  const coverage = Math.max(shared / Math.max(1, left.size), shared / Math.max(1, right.size));
  const [leftPrints, rightPrints] = [indexed(left), new Set(indexed(right))];
  const sharedPrints = leftPrints.filter((hash) => rightPrints.has(hash)).length;
  const estimate = Math.max(sharedPrints / Math.max(1, leftPrints.length), sharedPrints / Math.max(1, rightPrints.size));
  return { coverage, candidate: sharedPrints > 0 && estimate >= threshold * ESTIMATE_SLACK };
}
