import type { ClaimStore } from '../ports/claim-store.ts';
import type { ContradictionSeverity } from '../domain/claims.ts';

/** An active contradiction that a cited section takes part in. */
export interface ContradictionFlag {
  contradictionId: string;
  severity: ContradictionSeverity;
}

/** Most active contradictions read per answer (a collection with more keeps the newest). */
const MAX_ACTIVE = 1_000;

/**
 * The active contradictions each section takes part in through one of its claims, for the sections an answer
 * cites (research sources, and hosted-agent runs' `contradictionFlags`). Sections without any are left out.
 */
export async function contradictionFlags(store: ClaimStore, collectionId: string, sectionIds: string[]): Promise<Map<string, ContradictionFlag[]>> {
  const wanted = new Set(sectionIds);
  const flags = new Map<string, ContradictionFlag[]>();
  if (wanted.size === 0) return flags;
  const { items } = await store.listContradictions(collectionId, { status: 'active' }, MAX_ACTIVE);
  for (const contradiction of items) {
    for (const sectionId of new Set(contradiction.claims.map((claim) => claim.sectionId))) {
      if (!wanted.has(sectionId)) continue;
      flags.set(sectionId, [...(flags.get(sectionId) ?? []), { contradictionId: contradiction.id, severity: contradiction.severity }]);
    }
  }
  return flags;
}
