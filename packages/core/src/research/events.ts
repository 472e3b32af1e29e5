import type { DossierErrorCode } from '../domain/errors.ts';
import type { ResearchDepth, ResearchSource } from '../domain/types.ts';

/** Events of the research stream, exactly as the spec's SSE table (spec: Research stream). */
export type ResearchEvent =
  | { type: 'tool_call'; query: string; tool?: string }
  | { type: 'chunk'; content: string }
  | { type: 'done'; sessionId: string; sources: ResearchSource[] }
  | { type: 'error'; message: string };

/** Inside core the final events carry a little more: the whole answer, and the error code for runSync. */
export type ResearchRunEvent =
  | Extract<ResearchEvent, { type: 'tool_call' | 'chunk' }>
  | { type: 'done'; sessionId: string; sources: ResearchSource[]; answer: string }
  | { type: 'error'; message: string; code: DossierErrorCode };

/** The answer of POST …/research/sync. */
export interface ResearchAnswer {
  answer: string;
  sessionId: string;
  sources: ResearchSource[];
}

/** A research session as the API shows it (spec: ResearchSession). */
export interface ResearchSession {
  id: string;
  query: string;
  response: string;
  depth: ResearchDepth;
  model: string;
  sources: ResearchSource[];
  createdAt: string;
}
