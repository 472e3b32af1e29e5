import type { ResearchDepth } from '../domain/types.ts';
import type { ModelTier } from '../models/types.ts';

/** Tools a research run may offer the model. */
export type ResearchToolName = 'search' | 'scan_sections' | 'get_section_chunks';

/** What one depth allows (spec: Research depth levels). */
export interface DepthSettings {
  /** Model turns at most; the last one has no tools, so the run always ends with an answer or an error. */
  maxIterations: number;
  /** Credits metered per run. */
  credits: number;
  /** Which default model the resolver picks when the request names none. */
  tier: ModelTier;
  tools: readonly ResearchToolName[];
}

const SEARCH_ONLY: readonly ResearchToolName[] = ['search'];
const ALL_TOOLS: readonly ResearchToolName[] = ['search', 'scan_sections', 'get_section_chunks'];

/** The spec's depth table: quick and balanced use the fast model and search; deep and exhaustive add section tools. */
export const RESEARCH_DEPTHS: Readonly<Record<ResearchDepth, DepthSettings>> = Object.freeze({
  quick: { maxIterations: 5, credits: 0.5, tier: 'fast', tools: SEARCH_ONLY },
  balanced: { maxIterations: 10, credits: 1, tier: 'fast', tools: SEARCH_ONLY },
  deep: { maxIterations: 20, credits: 3, tier: 'best', tools: ALL_TOOLS },
  exhaustive: { maxIterations: 50, credits: 8, tier: 'best', tools: ALL_TOOLS },
});
