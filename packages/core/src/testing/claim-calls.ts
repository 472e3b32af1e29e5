import { RECORD_CLAIMS_TOOL } from '../claims/prompts.ts';
import type { ChatRequest } from '../ports/model-provider.ts';

/**
 * Whether a model request is a claim-extraction call. Every ready document gets one when a provider is
 * configured (a post-ready job), so tests that count other model calls leave these out.
 */
export const isClaimExtraction = (request: Pick<ChatRequest, 'tools'>): boolean =>
  request.tools?.some((tool) => tool.name === RECORD_CLAIMS_TOOL.name) ?? false;

/** A claim-extraction answer for scripted models: the `record_claims` call with these claims. */
export const recordClaimsTurn = (claims: { section: number; text: string; importance: number; sourceText: string }[] = []) => ({
  toolCalls: [{ name: RECORD_CLAIMS_TOOL.name, arguments: { claims } }],
});
