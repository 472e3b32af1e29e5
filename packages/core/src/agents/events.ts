import type { DossierErrorCode } from '../domain/errors.ts';
import type { AgentToolName } from '../domain/agents.ts';
import type { z } from 'zod';
import type * as responses from '../responses.ts';

/** The hosted-agent stream (spec: Hosted-agent stream), for invoke and preview; `done` is always the last event. */
export type AgentStreamEvent =
  | { type: 'run_started'; runId: string }
  | { type: 'tool_call'; tool: AgentToolName | string; collectionId: string | null; args: Record<string, unknown>; stepIndex: number }
  | { type: 'tool_result'; tool: AgentToolName | string; summary: string; stepIndex: number }
  | { type: 'chunk'; content: string }
  | { type: 'warning'; message: string }
  | { type: 'error'; message: string; code?: DossierErrorCode }
  | ({ type: 'done' } & AgentRunOutcome);

/** What a run ended with: the `done` event's fields, and (with `warnings`) the sync invoke's body. */
export type AgentRunOutcome = Omit<AgentSyncResult, 'warnings'>;

/** The body of POST …/invoke/sync (spec: the `done` payload, with the run's warnings). */
export type AgentSyncResult = z.output<typeof responses.agentSyncResult>;

/** Not an event of the spec's stream: what the run waits on, sent as SSE comments (keep-alives). */
export interface AgentProgress {
  type: 'progress';
  message: string;
}
