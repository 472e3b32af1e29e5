import { z } from 'zod';
import { CONTRADICTION_SEVERITIES, CONTRADICTION_STATUSES } from '../domain/claims.ts';

/** Request schemas of claims and contradictions (spec: Claims, Contradictions, Limits). */

export const claimsQuerySchema = z.strictObject({
  minImportance: z.coerce.number().int().min(1).max(5).default(1).describe('Only claims of at least this importance (1 to 5)'),
});

export const contradictionListQuerySchema = z.strictObject({
  status: z.enum(CONTRADICTION_STATUSES).default('active'),
  severity: z.enum(CONTRADICTION_SEVERITIES).optional(),
  documentId: z.string().uuid({ message: 'must be a UUID' }).optional().describe('Only contradictions touching this document'),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).default(0).describe('Matching contradictions to skip (paging: total says how many match)'),
});

export const contradictionFilesQuerySchema = z.strictObject({
  status: z.enum(CONTRADICTION_STATUSES).default('active'),
  severity: z.enum(CONTRADICTION_SEVERITIES).optional(),
});

/** The only update a contradiction takes (spec: update contradiction, status set to `dismissed`). */
export const updateContradictionSchema = z.strictObject({ status: z.literal('dismissed') });

export const applyInstructionSchema = z.strictObject({
  instruction: z.string().trim().min(1).max(4000).optional().describe('Overrides the suggested instruction'),
});

export type ContradictionListQuery = z.output<typeof contradictionListQuerySchema>;
export type ContradictionFilesQuery = z.output<typeof contradictionFilesQuerySchema>;
