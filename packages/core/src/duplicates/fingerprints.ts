/**
 * Near-duplicate fingerprints of a document's Markdown. Words are normalised (case, accents, Markdown syntax and
 * punctuation dropped), so a PDF, a DOCX and a web page of the same text give the same words. Every run of
 * SHINGLE_WORDS words is a shingle, hashed to 32 bits; the shingle set is what containment is measured on.
 *
 * Candidates come from content-defined sampling (the MinHash family's "mod-sampling" sketch): a shingle is a
 * fingerprint when its mixed hash is 0 modulo SAMPLE_MODULUS. The choice depends on the shingle alone, so when A's
 * text is contained in B's, every fingerprint of A is a fingerprint of B — whatever the size ratio. (Jaccard-based
 * MinHash banding misses exactly that case: an excerpt of a tenth of a long document has Jaccard ≈ 0.1 and is found
 * by 64×2 banding with probability 0.47.) The shared fraction of fingerprints estimates containment both ways;
 * candidates are then verified on the exact shingle sets.
 */

/** Words per shingle: four keeps unrelated texts on one topic apart while surviving reflowed layout. */
export const SHINGLE_WORDS = 4;
/** One shingle in this many is a fingerprint (a 400-word page has about 50). */
export const SAMPLE_MODULUS = 8;
/** Words read from one document: bounds time and memory for huge files (about 2 MB of text). */
export const MAX_WORDS = 300_000;

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
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Normalised words of Markdown: link targets, image references, HTML tags and syntax characters dropped. */
export function normalisedWords(markdown: string): string[] {
  const text = markdown
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\]\([^)]*\)/g, ' ')
    .replace(/<[^>]{0,200}>/g, ' ')
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '');
  const words = text.match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.length > MAX_WORDS ? words.slice(0, MAX_WORDS) : words;
}

/** The distinct shingle hashes of a text, sorted ascending (a text shorter than a shingle is one shingle). */
export function shingleSet(markdown: string): Uint32Array {
  const words = normalisedWords(markdown);
  const hashes = new Set<number>();
  if (words.length > 0 && words.length < SHINGLE_WORDS) hashes.add(fnv1a(words.join(' ')));
  for (let start = 0; start + SHINGLE_WORDS <= words.length; start++) hashes.add(fnv1a(words.slice(start, start + SHINGLE_WORDS).join(' ')));
  return Uint32Array.from(hashes).sort();
}

/** The fingerprints of a shingle set (sorted). */
export function fingerprintsOf(shingles: Uint32Array): number[] {
  const out: number[] = [];
  for (const hash of shingles) if (mix32(hash) % SAMPLE_MODULUS === 0) out.push(hash);
  return out;
}

/** |A ∩ B| of two sorted sets. */
export function intersectionSize(left: Uint32Array, right: Uint32Array): number {
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

/** Containment both ways: the share of A's shingles found in B, and of B's found in A. */
export function containment(left: Uint32Array, right: Uint32Array): { leftInRight: number; rightInLeft: number } {
  const shared = intersectionSize(left, right);
  return { leftInRight: left.length ? shared / left.length : 0, rightInLeft: right.length ? shared / right.length : 0 };
}
