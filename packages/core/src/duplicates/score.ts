import type { FingerprintMatch } from '../ports/duplicate-store.ts';
import { type Alignment, alignProfiles } from './align.ts';
import { type DuplicateProfile, indexedFingerprints, intersectionSize } from './fingerprints.ts';
import { MIN_SHARED_FINGERPRINTS } from './settings.ts';

/** Is a document sharing fingerprints with another worth aligning? (Enough shared fingerprints for its size.) */
export const isCandidate = (match: Pick<FingerprintMatch, 'shared' | 'fingerprintCount'>, ownCount: number): boolean =>
  match.shared >= Math.min(MIN_SHARED_FINGERPRINTS, ownCount, match.fingerprintCount);

/** The coverage of a pair: the larger share of either document inside the passages they share. */
export const coverageOf = (alignment: Alignment): number => Math.max(alignment.leftCoverage, alignment.rightCoverage);

/** Score a pair as detection does (bench and tests): would the index propose it, and its verified coverage. */
export function scoreDuplicatePair(left: DuplicateProfile, right: DuplicateProfile): { candidate: boolean; coverage: number; shared: number } {
  const [leftPrints, rightPrints] = [indexedFingerprints(left), indexedFingerprints(right)];
  const shared = intersectionSize(leftPrints, rightPrints);
  const candidate = isCandidate({ shared, fingerprintCount: rightPrints.length }, leftPrints.length);
  return { candidate, coverage: candidate ? coverageOf(alignProfiles(left, right)) : 0, shared };
}
