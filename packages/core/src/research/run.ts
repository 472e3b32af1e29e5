import type { DossierContext } from '../context.ts';
import { isDossierError } from '../domain/errors.ts';
import type { Metadata, ResearchSessionRecord, ResearchSource } from '../domain/types.ts';
import type { SearchService } from '../search/query.ts';
import { meterUsage } from '../usage/meter.ts';
import { newId, nowIso } from '../util/ids.ts';
import { type AgentEvent, runAgentLoop } from './agent-loop.ts';
import { sessionSources } from './citations.ts';
import type { ResearchRunEvent } from './events.ts';
import type { ResearchPlan } from './plan.ts';
import { FINAL_TURN_NOTE, researchSystemPrompt } from './prompt.ts';
import { SourceRegistry } from './sources.ts';
import { researchTools } from './tools.ts';

/** Tunables of research runs. */
export interface ResearchSettings {
  /** Wall-clock limit of one run; when it fires the run ends with an `error` event and no session is saved. */
  timeoutMs: number;
  /** Output token limit of each model call. */
  maxTokens: number;
}

export const DEFAULT_RESEARCH_SETTINGS: Readonly<ResearchSettings> = Object.freeze({ timeoutMs: 120_000, maxTokens: 4096 });

/**
 * One research run: run the agent loop with the depth's tools, and when it answers, save the session with a
 * frozen copy of its sources and meter the depth's credits. A cancelled run (signal aborted) ends without a further
 * event and saves nothing; a failed or timed-out run ends with one `error` event and saves nothing.
 */
export async function* researchRun(
  ctx: DossierContext,
  search: SearchService,
  plan: ResearchPlan,
  settings: ResearchSettings,
  signal?: AbortSignal,
): AsyncGenerator<ResearchRunEvent, void, undefined> {
  const { tags, anyTags, metadata } = plan.input;
  const registry = new SourceRegistry();
  const filter = { tags, anyTags, metadata: metadata as Metadata | undefined };
  const tools = researchTools(plan.depth.tools, { search, store: ctx.store, access: plan.owner, collection: plan.collection, filter, sources: registry });
  const loop = runAgentLoop({
    provider: plan.model.provider,
    model: plan.model.model,
    messages: [
      { role: 'system', content: researchSystemPrompt(plan.collection, plan.depth) },
      { role: 'user', content: plan.input.q },
    ],
    tools,
    maxIterations: plan.depth.maxIterations,
    timeoutMs: settings.timeoutMs,
    maxTokens: settings.maxTokens,
    finalTurnNote: FINAL_TURN_NOTE,
    signal,
    log: ctx.log,
  });
  for await (const ev of loop) {
    const out = ev.type === 'done' ? await finishRun(ctx, plan, ev.answer, sessionSources(ev.answer, registry)) : publicEvent(ev);
    if (out) yield out;
  }
}

/** Loop events as research events (`tool_result` stays inside: the spec's stream has no such event). */
function publicEvent(ev: Exclude<AgentEvent, { type: 'done' }>): ResearchRunEvent | null {
  if (ev.type === 'tool_call') return ev.tool === undefined ? { type: 'tool_call', query: ev.query } : { type: 'tool_call', query: ev.query, tool: ev.tool };
  if (ev.type === 'chunk') return { type: 'chunk', content: ev.content };
  if (ev.type === 'error') return { type: 'error', message: ev.message, code: ev.code };
  return null;
}

/** Save the session (sources copied, so later document changes never alter it) and make the `done` event. */
async function finishRun(ctx: DossierContext, plan: ResearchPlan, answer: string, sources: ResearchSource[]): Promise<ResearchRunEvent> {
  const session: ResearchSessionRecord = {
    id: newId(),
    collectionId: plan.collection.id,
    query: plan.input.q,
    response: answer,
    depth: plan.input.depth,
    model: plan.model.modelId,
    sources: sources.map((s) => ({ ...s })),
    createdAt: nowIso(),
  };
  try {
    await ctx.store.insertResearchSession(session);
    // Credits are spent by runs that answer (spec: per research run); a failed or cancelled run costs none.
    await meterUsage(ctx, plan.owner, 'credits', plan.depth.credits);
  } catch (err) {
    ctx.log.error('research session not saved', { collectionId: plan.collection.id, error: String(err) });
    return { type: 'error', code: isDossierError(err) ? err.code : 'internal', message: 'The answer could not be saved' };
  }
  return { type: 'done', sessionId: session.id, sources: session.sources, answer };
}
