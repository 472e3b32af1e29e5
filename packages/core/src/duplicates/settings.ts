import type { Collection } from '../domain/types.ts';

/**
 * Two documents are near-duplicates when the passages they share cover at least this share of either one's
 * content words (measured both ways, so an excerpt copied from a longer document qualifies). A collection's
 * `duplicateThreshold` overrides it. Chosen on bench/duplicates/pairs.ts (bench/RESULTS.md, issue 40).
 */
export const DEFAULT_DUPLICATE_THRESHOLD = 0.5;
/** Fingerprints held by more documents than this are boilerplate and suggest no candidate. */
export const MAX_POSTING = 1_000;
/** Candidates aligned per document check, most shared fingerprints first. */
export const MAX_CANDIDATES = 25;
/** Shared fingerprints that make a candidate (fewer when either document has fewer fingerprints). */
export const MIN_SHARED_FINGERPRINTS = 2;

export const thresholdOf = (collection: Collection): number => collection.duplicateThreshold ?? DEFAULT_DUPLICATE_THRESHOLD;
