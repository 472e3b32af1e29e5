import type { DossierErrorCode } from '../domain/errors.ts';
import type { ResearchSource, RunUsage } from '../domain/types.ts';
import type { z } from 'zod';
import type * as responses from '../responses.ts';

/**
 * Events of the research stream: the spec's SSE table (spec: Research stream), plus two optional fields: `code` on
 * `error` (the error code, so clients can tell a provider failure from a refusal) and `unresolvedCitations` on
 * `done` (present only when the answer cited markers no tool returned; they are removed from the saved answer).
 */
export type ResearchEvent =
  | { type: 'tool_call'; query: string; tool?: string }
  | { type: 'chunk'; content: string }
  | { type: 'done'; sessionId: string; sources: ResearchSource[]; unresolvedCitations?: string[] }
  | { type: 'error'; message: string; code?: DossierErrorCode };

/** Not an event of the spec's stream: what the run is doing, for keep-alive comments and progress lines. */
export interface ResearchProgress {
  type: 'progress';
  message: string;
}

/** Inside core the final events carry a little more: the whole answer and its usage. */
export type ResearchRunEvent =
  | Extract<ResearchEvent, { type: 'tool_call' | 'chunk' }>
  | ResearchProgress
  | { type: 'done'; sessionId: string; sources: ResearchSource[]; answer: string; unresolvedCitations: string[]; usage: RunUsage }
  | { type: 'error'; message: string; code: DossierErrorCode };

/** The answer of POST …/research/sync (`unresolvedCitations` only when the answer cited markers no tool returned). */
export type ResearchAnswer = z.output<typeof responses.researchAnswer>;

/** A research session as the API shows it (spec: ResearchSession, plus `unresolvedCitations` and `usage`). */
export type ResearchSession = z.output<typeof responses.researchSession>;
