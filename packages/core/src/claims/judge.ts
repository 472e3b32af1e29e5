import { z } from 'zod';
import type { ClaimRecord, ContradictionClaimRef, ContradictionRecord } from '../domain/claims.ts';
import { CONTRADICTION_SEVERITIES } from '../domain/claims.ts';
import type { ResolvedModel } from '../models/types.ts';
import { newId } from '../util/ids.ts';
import { judgePrompt, REPORT_CONTRADICTIONS_TOOL } from './prompts.ts';
import { argumentList, toolArguments } from './structured.ts';

/** A claim with the facts the judge and the suppression rules need about its document. */
export interface JudgedClaim {
  claim: ClaimRecord;
  documentName: string;
  metadata: Record<string, unknown>;
}

/** Collection settings the verdicts are filtered by (spec: Collection). */
export interface SuppressionRules {
  suppressIntraDocument: boolean;
  suppressByMetadata: boolean;
}

const verdict = z.object({
  claims: z.array(z.coerce.number().int()).min(2),
  severity: z.enum(CONTRADICTION_SEVERITIES).catch('medium'),
  explanation: z.string().trim().min(1).max(2_000),
  suggestedInstruction: z.string().trim().max(1_000).nullish(),
});

const MAX_OUTPUT_TOKENS = 2_048;
const MODEL_CALL_TIMEOUT_MS = 120_000;

/**
 * True when two documents are scoped apart: they share a metadata key and disagree on its value (spec:
 * suppressContradictionsByMetadata). Every key counts; a document lacking the key is scope-compatible.
 */
export function scopedApart(left: Record<string, unknown>, right: Record<string, unknown>): boolean {
  return Object.keys(left).some((key) => key in right && JSON.stringify(left[key]) !== JSON.stringify(right[key]));
}

/** Whether a verdict's claims survive the collection's suppression rules. */
export function survives(claims: JudgedClaim[], rules: SuppressionRules): boolean {
  if (rules.suppressIntraDocument && new Set(claims.map((entry) => entry.claim.documentId)).size < 2) return false;
  if (!rules.suppressByMetadata) return true;
  // Dropped when every pair from different documents is scoped apart.
  for (const [index, left] of claims.entries()) {
    for (const right of claims.slice(index + 1)) {
      if (left.claim.documentId !== right.claim.documentId && !scopedApart(left.metadata, right.metadata)) return true;
    }
  }
  return false;
}

const claimRef = (entry: JudgedClaim): ContradictionClaimRef => ({
  claimId: entry.claim.id,
  text: entry.claim.text,
  sourceText: entry.claim.sourceText,
  documentId: entry.claim.documentId,
  documentName: entry.documentName,
  sectionId: entry.claim.sectionId,
  sectionTitle: entry.claim.sectionTitle,
});

/** Sorted claim ids: the identity of a conflict across runs. */
export const fingerprintOf = (claimIds: string[]): string => [...claimIds].sort().join(',');

/** One judge call over a group of similar claims; the contradictions it reports that survive the rules. */
export async function judgeGroup(model: ResolvedModel, group: JudgedClaim[], rules: SuppressionRules, signal: AbortSignal): Promise<ContradictionRecord[]> {
  const numbered = group.map((entry, index) => ({ number: index + 1, text: entry.claim.text, documentName: entry.documentName }));
  const result = await model.provider.chat({
    model: model.model,
    messages: judgePrompt(numbered),
    tools: [REPORT_CONTRADICTIONS_TOOL],
    toolChoice: { tool: REPORT_CONTRADICTIONS_TOOL.name },
    maxTokens: MAX_OUTPUT_TOKENS,
    temperature: 0,
    signal: AbortSignal.any([signal, AbortSignal.timeout(MODEL_CALL_TIMEOUT_MS)]),
  });
  const args = toolArguments(result, REPORT_CONTRADICTIONS_TOOL.name);
  const topic = typeof args?.topicSummary === 'string' && args.topicSummary.trim() ? args.topicSummary.trim().slice(0, 300) : null;
  const found: ContradictionRecord[] = [];
  for (const raw of argumentList(args, 'contradictions')) {
    const parsed = verdict.safeParse(raw);
    if (!parsed.success) continue;
    const members = [...new Set(parsed.data.claims)].flatMap((number) => group[number - 1] ?? []);
    if (members.length < 2 || !survives(members, rules)) continue;
    found.push({
      id: newId(),
      collectionId: members[0]!.claim.collectionId,
      severity: parsed.data.severity,
      status: 'active',
      explanation: parsed.data.explanation,
      clusterTopicSummary: topic,
      suggestedInstruction: parsed.data.suggestedInstruction || null,
      claims: members.map(claimRef),
      fingerprint: fingerprintOf(members.map((entry) => entry.claim.id)),
      createdAt: new Date().toISOString(),
    });
  }
  return found;
}
