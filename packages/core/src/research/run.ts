import { type AgentEvent, runAgentLoop } from '../tool-loop/loop.ts';
import { DEFAULT_RETRY, type RetryPolicy } from '../tool-loop/retry.ts';
import { type ContextPart, type DossierContext, eventsSaved } from '../context.ts';
import { serviceEvent } from '../events/catalogue.ts';
import { isDossierError } from '../domain/errors.ts';
import type { Metadata, ResearchDepth, ResearchSessionRecord, RunUsage } from '../domain/types.ts';
import type { SearchService } from '../search/query.ts';
import { meterUsage } from '../usage/meter.ts';
import { newId, nowIso } from '../util/ids.ts';
import { type CheckedAnswer, checkCitations } from './citations.ts';
import { DEFAULT_INPUT_BUDGETS, DEFAULT_TIME_LIMITS_MS } from './depths.ts';
import type { ResearchRunEvent } from './events.ts';
import type { ResearchPlan } from './plan.ts';
import { FINAL_TURN_NOTE, researchSystemPrompt } from './prompt.ts';
import { SourceRegistry } from './sources.ts';
import { contradictionFlags } from '../claims/flags.ts';
import { researchTools } from './tools.ts';

/** Tunables of research runs (the server sets them from its configuration). */
export interface ResearchSettings {
  /** Wall-clock limit of one run per depth, retries included; when it fires the run ends with an `error` event and no session is saved. */
  timeLimitsMs: Readonly<Record<ResearchDepth, number>>;
  /** Input tokens one run may send the model per depth, all calls together (see the tool loop's budget). */
  inputTokenBudgets: Readonly<Record<ResearchDepth, number>>;
  /** Output token limit of each model call. */
  maxTokens: number;
  /** Retries of model calls that fail transiently (429, 529, 5xx, dropped connections). */
  retry: RetryPolicy;
}

export const DEFAULT_RESEARCH_SETTINGS: Readonly<ResearchSettings> = Object.freeze({
  timeLimitsMs: DEFAULT_TIME_LIMITS_MS,
  inputTokenBudgets: DEFAULT_INPUT_BUDGETS,
  maxTokens: 4096,
  retry: DEFAULT_RETRY,
});

/**
 * One research run: run the tool loop with the depth's tools, time limit and token budget, and when it answers,
 * check its citations, save the session with a frozen copy of its sources and meter the depth's credits. A
 * cancelled run (signal aborted) ends without a further event and saves nothing; a failed or timed-out run ends
 * with one `error` event, is logged once, and saves nothing.
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
  const depth = plan.input.depth;
  const loop = runAgentLoop({
    provider: plan.model.provider,
    model: plan.model.model,
    messages: [
      { role: 'system', content: researchSystemPrompt(plan.collection, plan.depth) },
      { role: 'user', content: plan.input.q },
    ],
    tools,
    maxIterations: plan.depth.maxIterations,
    timeoutMs: settings.timeLimitsMs[depth],
    inputTokenBudget: settings.inputTokenBudgets[depth],
    retry: settings.retry,
    maxTokens: settings.maxTokens,
    finalTurnNote: FINAL_TURN_NOTE,
    signal,
    log: ctx.log,
  });
  for await (const ev of loop) {
    const out = ev.type === 'done' ? await finishRun(ctx, plan, checkCitations(ev.answer, registry), ev.usage) : runEvent(ev);
    if (out?.type === 'error' && ev.type === 'error') logFailure(ctx, plan, out);
    if (out) yield out;
  }
}

/** Loop events as research events (`tool_result` stays inside: the spec's stream has no such event). */
function runEvent(ev: Exclude<AgentEvent, { type: 'done' }>): ResearchRunEvent | null {
  switch (ev.type) {
    case 'tool_call':
      return ev.tool === undefined ? { type: 'tool_call', query: ev.query } : { type: 'tool_call', query: ev.query, tool: ev.tool };
    case 'chunk':
      return { type: 'chunk', content: ev.content };
    case 'error':
      return { type: 'error', message: ev.message, code: ev.code };
    case 'model_call': {
      const attempt = ev.attempt > 1 ? `, attempt ${ev.attempt}` : '';
      return {
        type: 'progress',
        message: `${ev.final ? 'writing the answer' : 'waiting for the model'} (turn ${ev.iteration} of ${ev.maxIterations}${attempt})`,
      };
    }
    case 'warning':
      return { type: 'progress', message: ev.message };
    case 'retry':
      return { type: 'progress', message: `retry ${ev.attempt} in ${Math.ceil(ev.delayMs / 1000)} s: ${ev.message}` };
    default:
      return null;
  }
}

/**
 * One log line per failed run, whichever way it was asked for (stream or sync), with its cause: a warning when a
 * dependency or a limit ended it (provider down, time limit), an error when Dossier itself failed.
 */
function logFailure(ctx: ContextPart<'log'>, plan: ResearchPlan, ev: Extract<ResearchRunEvent, { type: 'error' }>): void {
  ctx.log[ev.code === 'internal' ? 'error' : 'warn']('research run failed', {
    collectionId: plan.collection.id,
    depth: plan.input.depth,
    model: plan.model.modelId,
    code: ev.code,
    error: ev.message,
  });
}

/** Save the session (sources copied, so later document changes never alter it) and make the `done` event. */
async function finishRun(ctx: DossierContext, plan: ResearchPlan, checked: CheckedAnswer, usage: RunUsage): Promise<ResearchRunEvent> {
  const flags = await contradictionFlags(
    ctx.store,
    plan.collection.id,
    checked.sources.map((source) => source.sectionId),
  );
  const session: ResearchSessionRecord = {
    id: newId(),
    collectionId: plan.collection.id,
    query: plan.input.q,
    response: checked.answer,
    depth: plan.input.depth,
    model: plan.model.modelId,
    sources: checked.sources.map((s) => (flags.has(s.sectionId) ? { ...s, contradictions: flags.get(s.sectionId) } : { ...s })),
    unresolvedCitations: checked.unresolved,
    usage: { ...usage },
    createdAt: nowIso(),
  };
  try {
    const { projectId, id: collectionId } = plan.collection;
    const completed = [
      serviceEvent('research.completed', plan.collection, {
        sessionId: session.id,
        collectionId,
        projectId,
        depth: session.depth,
        sourceCount: session.sources.length,
      }),
    ];
    await ctx.store.insertResearchSession(session, completed);
    eventsSaved(ctx, completed);
    // Credits are spent by runs that answer (spec: per research run); a failed or cancelled run costs none.
    await meterUsage(ctx.store, plan.owner, 'credits', plan.depth.credits);
  } catch (err) {
    ctx.log.error('research session not saved', { collectionId: plan.collection.id, error: String(err) });
    return { type: 'error', code: isDossierError(err) ? err.code : 'internal', message: 'The answer could not be saved' };
  }
  ctx.log.info('research run finished', {
    collectionId: plan.collection.id,
    sessionId: session.id,
    depth: plan.input.depth,
    model: plan.model.modelId,
    usage,
    unresolvedCitations: checked.unresolved,
  });
  return { type: 'done', sessionId: session.id, sources: session.sources, answer: session.response, unresolvedCitations: checked.unresolved, usage };
}
