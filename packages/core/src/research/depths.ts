import type { ResearchDepth } from '../domain/types.ts';
import type { ModelTier } from '../models/types.ts';

/** Tools a research run may offer the model. */
export type ResearchToolName = 'search' | 'scan_sections' | 'get_section_chunks';

/** What one depth allows (spec: Research depth levels). */
export interface DepthSettings {
  /** Model turns at most; the last one may call no tools, so the run always ends with an answer or an error. */
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

/**
 * Wall-clock limit of a run per depth (retries included). A model turn of the best tier takes 5–20 s, so an
 * exhaustive run of 50 turns needs minutes; quick runs fail fast instead of holding a client for minutes.
 */
export const DEFAULT_TIME_LIMITS_MS: Readonly<Record<ResearchDepth, number>> = Object.freeze({
  quick: 60_000,
  balanced: 120_000,
  deep: 300_000,
  exhaustive: 900_000,
});

/**
 * Input tokens one run may send the model in total, all calls together (issue 12: a deep run sent about 700k
 * tokens and an exhaustive one about 5M before). With an even share per call, a balanced call carries about 6k
 * tokens of context and an exhaustive one about 10k, which holds the current evidence in full and older results
 * condensed.
 */
export const DEFAULT_INPUT_BUDGETS: Readonly<Record<ResearchDepth, number>> = Object.freeze({
  quick: 30_000,
  balanced: 60_000,
  deep: 200_000,
  exhaustive: 500_000,
});
