import type { UsageStore } from '../ports/research-store.ts';
import type { ClaimStore } from '../ports/claim-store.ts';
import type { CollectionStore } from '../ports/collection-store.ts';
import { type AgentEvent, runAgentLoop } from '../tool-loop/loop.ts';
import { contradictionFlags } from '../claims/flags.ts';
import { type ContextPart, type DossierContext, eventsSaved } from '../context.ts';
import type { AgentContradictionFlag, AgentRunEndStatus, AgentRunRecord, AgentRunSource, AgentRunStepRecord, AgentStepKind } from '../domain/agents.ts';
import { isDossierError } from '../domain/errors.ts';
import type { RunUsage } from '../domain/types.ts';
import { serviceEvent } from '../events/catalogue.ts';
import { releaseRunSlot } from '../limits/run-slots.ts';
import { checkCitations } from '../research/citations.ts';
import type { ResearchSettings } from '../research/run.ts';
import { SourceRegistry } from '../research/sources.ts';
import type { SearchService } from '../search/query.ts';
import { refundMeter } from '../usage/quotas.ts';
import { nowIso } from '../util/ids.ts';
import type { AgentProgress, AgentRunOutcome, AgentStreamEvent } from './events.ts';
import { AGENT_INPUT_TOKEN_BUDGET, AGENT_MAX_ITERATIONS, AGENT_RUN_CREDITS, type AgentInvocation, agentSandbox } from './invocation.ts';
import { AGENT_FINAL_TURN_NOTE, agentPromptFooter } from './prompt.ts';
import { summarizeToolResult } from './summary.ts';
import { agentTools } from './tools.ts';

/** What a run accumulates while it streams. */
interface RunState {
  steps: AgentRunStepRecord[];
  warnings: string[];
  response: string;
  iterations: number;
  usage: RunUsage | null;
  registry: SourceRegistry;
  collectionOfChunk: Map<string, string>;
  /** How the loop ended: null while it runs (and when it ended without a word: cancelled). */
  ended: { status: AgentRunEndStatus; error: string | null } | null;
  /** Whether the credit spent at admission was settled (kept, or given back). */
  creditSettled: boolean;
}

/**
 * One hosted-agent run: the tool loop (tool-loop/) with the agent's prompt (plus the service footer), tools, model and time
 * limit, streamed as the spec's events and ended by exactly one `done`. A timeout becomes a `warning` and status
 * `timeout`; a failure an `error` then `done` with status `failed`; a cancelled run (client gone) ends
 * `cancelled`. Saved runs are stored with their steps and their `agent.run.completed` event in one transaction;
 * previews store nothing. The credit spent at admission is kept by runs that reached an answer (succeeded or
 * timeout) and given back otherwise.
 */
export async function* agentRun(
  ctx: DossierContext,
  search: SearchService,
  plan: AgentInvocation,
  settings: ResearchSettings,
  signal: AbortSignal,
): AsyncGenerator<AgentStreamEvent | AgentProgress, AgentRunOutcome & { warnings: string[] }, undefined> {
  const state: RunState = {
    steps: [],
    warnings: [],
    response: '',
    iterations: 0,
    usage: null,
    registry: new SourceRegistry(),
    collectionOfChunk: new Map(),
    ended: null,
    creditSettled: false,
  };
  try {
    const started = nowIso();
    if (plan.persisted) await ctx.store.insertAgentRun(runRecord(plan, state, 'running', started, null));
    yield { type: 'run_started', runId: plan.runId };
    addStep(state, 'message', null, null, { role: 'user', content: plan.query });
    for await (const ev of runAgentLoop(await loopOptions(ctx, search, plan, settings, state, signal))) {
      const out = streamEvent(ev, state);
      if (out) yield out;
    }
    const outcome = await finish(ctx, plan, state, started);
    yield { type: 'done', ...outcome };
    return { ...outcome, warnings: state.warnings };
  } finally {
    // A run that broke off before its end (an exception) did not happen as far as credits go.
    if (!state.creditSettled) await settleCredit(ctx, plan, state, false);
    await releaseRunSlot(ctx, plan.lease).catch((err) => ctx.log.warn('agent run slot not released', { runId: plan.runId, error: String(err) }));
  }
}

async function loopOptions(
  ctx: DossierContext,
  search: SearchService,
  plan: AgentInvocation,
  settings: ResearchSettings,
  state: RunState,
  signal: AbortSignal,
) {
  const { agent } = plan;
  const scope = {
    ctx,
    search,
    projectId: plan.projectId,
    documentId: plan.documentId,
    sources: state.registry,
    collectionOfChunk: state.collectionOfChunk,
    // Re-read on every tool call, so an update of the saved agent applies mid-run (a preview keeps its draft).
    allowedCollections: async () => (plan.persisted ? ((await ctx.store.getAgent(agent.id))?.allowedCollectionIds ?? []) : agent.allowedCollectionIds),
  };
  const tools = agentTools(agent.toolset, scope);
  const footer = agentPromptFooter({
    collections: await promptCollections(ctx.store, plan),
    everyCollection: agent.allowedCollectionIds === null,
    tools: tools.map((tool) => tool.definition.name),
    documentId: plan.documentId,
    outputSchema: agent.outputSchema,
  });
  return {
    provider: plan.model.provider,
    model: plan.model.model,
    tools,
    signal,
    log: ctx.log,
    messages: [
      { role: 'system' as const, content: `${agent.systemPrompt}\n\n${footer}` },
      { role: 'user' as const, content: plan.query },
    ],
    maxIterations: AGENT_MAX_ITERATIONS,
    timeoutMs: agent.timeoutMs,
    inputTokenBudget: AGENT_INPUT_TOKEN_BUDGET,
    retry: settings.retry,
    maxTokens: settings.maxTokens,
    finalTurnNote: AGENT_FINAL_TURN_NOTE,
  };
}

/** The collections the footer lists: the allow-list, or (for null) the project's collections, up to 100. */
async function promptCollections(store: CollectionStore, plan: AgentInvocation): Promise<{ id: string; name: string }[]> {
  const ids = plan.agent.allowedCollectionIds;
  if (ids !== null) {
    const found = await Promise.all(ids.map((id) => store.getCollection(id)));
    return ids.map((id, index) => ({ id, name: found[index]?.name ?? '(deleted)' }));
  }
  const all = [...(await store.listCollections(plan.projectId, 'live')), ...(await store.listCollections(plan.projectId, 'test'))];
  return all
    .filter((c) => !c.deletedAt)
    .slice(0, 100)
    .map((c) => ({ id: c.id, name: c.name }));
}

function addStep(state: RunState, kind: AgentStepKind, tool: string | null, collectionId: string | null, content: Record<string, unknown>): number {
  const stepIndex = state.steps.length;
  state.steps.push({ runId: '', stepIndex, kind, tool, collectionId, content, createdAt: nowIso() });
  return stepIndex;
}

/** A loop event as a stream event (model calls and retries become progress comments); records steps and the ending. */
function streamEvent(ev: AgentEvent, state: RunState): AgentStreamEvent | AgentProgress | null {
  switch (ev.type) {
    case 'tool_call': {
      const collectionId = typeof ev.call.arguments?.collectionId === 'string' ? ev.call.arguments.collectionId : null;
      const args = ev.call.arguments ?? {};
      return { type: 'tool_call', tool: ev.call.name, collectionId, args, stepIndex: addStep(state, 'tool_call', ev.call.name, collectionId, args) };
    }
    case 'tool_result': {
      const summary = summarizeToolResult(ev.call.name, ev.content);
      return { type: 'tool_result', tool: ev.call.name, summary, stepIndex: addStep(state, 'tool_result', ev.call.name, null, { summary }) };
    }
    case 'chunk':
      state.response += ev.content;
      return ev;
    case 'warning':
      state.warnings.push(ev.message);
      return ev;
    case 'model_call':
      return {
        type: 'progress',
        message: `waiting for the model (turn ${ev.iteration} of ${ev.maxIterations}${ev.attempt > 1 ? `, attempt ${ev.attempt}` : ''})`,
      };
    case 'retry':
      return { type: 'progress', message: `retry ${ev.attempt} in ${Math.ceil(ev.delayMs / 1000)} s: ${ev.message}` };
    case 'done':
      Object.assign(state, { iterations: ev.iterations, usage: ev.usage, ended: { status: 'succeeded', error: null } });
      return null;
    case 'error':
      return endWithError(ev, state);
  }
}

/** A timeout is a warning and status `timeout` (spec); any other failure an `error` event and status `failed`. */
function endWithError(ev: Extract<AgentEvent, { type: 'error' }>, state: RunState): AgentStreamEvent {
  state.usage = ev.usage;
  state.iterations = ev.usage.modelCalls - ev.usage.retries;
  if (ev.code === 'timeout') {
    state.ended = { status: 'timeout', error: null };
    state.warnings.push(ev.message);
    return { type: 'warning', message: ev.message };
  }
  state.ended = { status: 'failed', error: ev.message };
  return { type: 'error', message: ev.message, code: ev.code };
}

/** Settle the outcome (citations, structured output, contradiction flags), store it with its event, and meter it. */
async function finish(ctx: DossierContext, plan: AgentInvocation, state: RunState, started: string): Promise<AgentRunOutcome> {
  const status = state.ended?.status ?? 'cancelled';
  const { response, sources } = citedSources(plan, state);
  const outcome: AgentRunOutcome = {
    runId: plan.runId,
    status,
    response,
    iterationsUsed: state.iterations,
    sources,
    contradictionFlags: await flagsOf(ctx, sources),
  };
  if (plan.output && status === 'succeeded') {
    const checked = plan.output.check(response);
    if (checked.ok) outcome.structuredOutput = checked.value;
    else state.warnings.push(`No structuredOutput: ${checked.reason}`);
  }
  if (response) addStep(state, 'message', null, null, { role: 'assistant', content: response });
  if (plan.persisted) await save(ctx, plan, state, outcome, started);
  await settleCredit(ctx, plan, state, status === 'succeeded' || status === 'timeout');
  ctx.log.info('agent run ended', { runId: plan.runId, agentId: plan.agent.id, status, iterations: state.iterations, usage: state.usage });
  return outcome;
}

/** Keep the credit spent at admission (a run that answered), or give it back (failed, cancelled, broken off). */
async function settleCredit(ctx: ContextPart<'log', UsageStore>, plan: AgentInvocation, state: RunState, keep: boolean): Promise<void> {
  state.creditSettled = true;
  if (keep) return;
  await refundMeter(ctx.store, agentSandbox(plan.projectId), 'credits', AGENT_RUN_CREDITS).catch((err) =>
    ctx.log.warn('agent run credit not given back', { runId: plan.runId, error: String(err) }),
  );
}

/** The passages the answer cites, each with its collection; invented markers are removed from prose answers only. */
function citedSources(plan: AgentInvocation, state: RunState): { response: string; sources: AgentRunSource[] } {
  const checked = checkCitations(state.response, state.registry);
  const sources = checked.sources.map((source) => ({
    ...source,
    marker: source.marker ?? '',
    collectionId: state.collectionOfChunk.get(source.chunkId) ?? '',
  }));
  // A structured answer is JSON: `[1, 2]` there is data, not a citation, so the raw response is kept (spec).
  return { response: plan.output ? state.response : checked.answer, sources };
}

async function flagsOf(ctx: ContextPart<never, ClaimStore>, sources: AgentRunSource[]): Promise<AgentContradictionFlag[]> {
  const flags: AgentContradictionFlag[] = [];
  for (const collectionId of new Set(sources.map((source) => source.collectionId).filter(Boolean))) {
    const sectionIds = sources.filter((source) => source.collectionId === collectionId).map((source) => source.sectionId);
    for (const [sectionId, found] of await contradictionFlags(ctx.store, collectionId, sectionIds)) {
      flags.push(...found.map((flag) => ({ sectionId, contradictionId: flag.contradictionId, severity: flag.severity })));
    }
  }
  return flags;
}

async function save(ctx: DossierContext, plan: AgentInvocation, state: RunState, outcome: AgentRunOutcome, started: string): Promise<void> {
  const run = { ...runRecord(plan, state, outcome.status, started, nowIso()), ...outcome, warnings: state.warnings, error: state.ended?.error ?? null };
  const steps = state.steps.map((step) => ({ ...step, runId: plan.runId }));
  const completed = [
    serviceEvent('agent.run.completed', agentSandbox(plan.projectId), {
      runId: plan.runId,
      agentId: plan.agent.id,
      agentSlug: plan.agent.slug,
      projectId: plan.projectId,
      status: outcome.status,
      iterationsUsed: outcome.iterationsUsed,
      sourceCount: outcome.sources.length,
      error: run.error,
    }),
  ];
  try {
    await ctx.store.finishAgentRun(run, steps, completed);
    eventsSaved(ctx, completed);
  } catch (err) {
    ctx.log.error('agent run not saved', { runId: plan.runId, error: isDossierError(err) ? err.message : String(err) });
  }
}

function runRecord(plan: AgentInvocation, state: RunState, status: AgentRunRecord['status'], createdAt: string, completedAt: string | null): AgentRunRecord {
  return {
    id: plan.runId,
    agentId: plan.agent.id,
    projectId: plan.projectId,
    query: plan.query,
    documentId: plan.documentId,
    status,
    response: state.response,
    sources: [],
    contradictionFlags: [],
    warnings: [],
    iterationsUsed: state.iterations,
    error: null,
    usage: state.usage,
    agentSnapshot: plan.agent,
    createdBy: plan.createdBy,
    createdAt,
    completedAt,
  };
}
