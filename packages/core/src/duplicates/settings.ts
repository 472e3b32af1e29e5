import type { Collection } from '../domain/types.ts';

/**
 * Two documents are near-duplicates when at least this share of either one's shingles occurs in the other
 * (coverage is measured both ways, so an excerpt copied from a longer document qualifies). A collection's
 * `duplicateThreshold` overrides it. Measured with bench/duplicates (bench/RESULTS.md).
 */
export const DEFAULT_DUPLICATE_THRESHOLD = 0.75;
/** Fingerprints held by more documents than this are boilerplate and suggest no candidate. */
export const MAX_POSTING = 1_000;
/** Candidates verified per document check, most shared fingerprints first. */
export const MAX_CANDIDATES = 25;
/** A candidate is verified on exact shingles when its estimated coverage reaches this share of the threshold. */
export const ESTIMATE_SLACK = 0.6;

export const thresholdOf = (collection: Collection): number => collection.duplicateThreshold ?? DEFAULT_DUPLICATE_THRESHOLD;
