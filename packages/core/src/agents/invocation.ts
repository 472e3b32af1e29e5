import type { UsageStore } from '../ports/research-store.ts';
import type { AccountStore } from '../ports/account-store.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { CollectionStore } from '../ports/collection-store.ts';
import type { AgentStore } from '../ports/agent-store.ts';
import type { SessionClaims } from '../auth/jwt.ts';
import type { ContextPart } from '../context.ts';
import { AGENT_TIMEOUT_DEFAULT_MS, type AgentRecord, type AgentSnapshot } from '../domain/agents.ts';
import { DossierError, isDossierError, notFound } from '../domain/errors.ts';
import { acquireRunSlot } from '../limits/run-slots.ts';
import type { Project } from '../domain/types.ts';
import type { ResolvedModel } from '../models/types.ts';
import type { Lease } from '../ports/concurrency-gate.ts';
import { parseInput } from '../schemas.ts';
import { refundMeter, spendMeter } from '../usage/quotas.ts';
import { isUuid, newId } from '../util/ids.ts';
import { requireProjectRole } from './access.ts';
import { checkCollections, fullToolset, stripUndefined } from './fields.ts';
import { compileOutputSchema, type OutputValidator } from './output.ts';
import { invokeAgentSchema, previewAgentSchema } from './schemas.ts';

/** Credits one agent run spends (as a balanced research run: spec leaves the figure open). */
export const AGENT_RUN_CREDITS = 1;
/** Model turns of one run at most; the last one may call no tools. */
export const AGENT_MAX_ITERATIONS = 20;
/** Input tokens all model calls of one run may send together (as a deep research run). */
export const AGENT_INPUT_TOKEN_BUDGET = 200_000;

/** Everything a run needs, settled before the stream opens (failures here are HTTP statuses). */
export interface AgentInvocation {
  runId: string;
  /** Saved runs are stored with their steps; previews store nothing. */
  persisted: boolean;
  agent: AgentSnapshot;
  projectId: string;
  query: string;
  documentId: string | null;
  model: ResolvedModel;
  output: OutputValidator | null;
  /** The account that invoked it (null for an org key). */
  createdBy: string | null;
  /** The org's run slot (null when its plan sets no cap); released when the run ends. */
  lease: Lease | null;
}

/** The project's sandbox agent runs are metered on (agents belong to the project, not to a key's sandbox). */
export const agentSandbox = (projectId: string) => ({ projectId, env: 'live' as const });

/** The agent's model, paid by a project provider key (402 without one; the operator's managed key is never used). */
async function projectModel(ctx: ContextPart<'models'>, projectId: string, modelId: string): Promise<ResolvedModel> {
  const needKey = () =>
    new DossierError('payment_required', `Hosted agents need a provider key of the project for ${modelId} (POST /v1/projects/${projectId}/provider-keys)`);
  try {
    const model = await ctx.models.resolve(agentSandbox(projectId), modelId, 'best');
    if (model.keySource === 'managed') throw needKey();
    return model;
  } catch (err) {
    if (isDossierError(err, 'not_configured')) throw needKey();
    throw err;
  }
}

/** The scoping document must be a ready document of a collection the agent may read. */
async function checkDocument(store: DocumentStore & CollectionStore, agent: AgentSnapshot, projectId: string, id: string | undefined): Promise<string | null> {
  if (!id) return null;
  const doc = await store.getDocument(id);
  const collection = doc ? await store.getCollection(doc.collectionId) : null;
  const allowed = agent.allowedCollectionIds === null || (doc !== null && agent.allowedCollectionIds.includes(doc.collectionId));
  if (!doc || !collection || collection.deletedAt || collection.projectId !== projectId || !allowed) throw notFound('Document');
  return doc.id;
}

/**
 * Credits (422 when the month's are spent) and the org's concurrency cap (429 with Retry-After), in that order.
 * The run's credit is spent here, atomically with the check (concurrent invocations cannot overspend), and given
 * back when the run does not happen or ends failed or cancelled (run.ts).
 */
async function admit(ctx: ContextPart<'gate' | 'plans', UsageStore & AccountStore>, projectId: string, timeoutMs: number): Promise<Lease | null> {
  try {
    await spendMeter(ctx, agentSandbox(projectId), 'credits', AGENT_RUN_CREDITS);
  } catch (err) {
    if (isDossierError(err, 'rate_limited')) throw new DossierError('unprocessable', err.message, { cause: err });
    throw err;
  }
  try {
    // The lease outlives the run's time limit a little, so a crashed process frees its slot soon after.
    return await acquireRunSlot(ctx, projectId, timeoutMs + 30_000);
  } catch (err) {
    await refundMeter(ctx.store, agentSandbox(projectId), 'credits', AGENT_RUN_CREDITS);
    throw err;
  }
}

/** Settle a run of `agent`: the document scope, the model, the output schema, credits and a slot. */
async function settle(
  ctx: ContextPart<'gate' | 'models' | 'plans', DocumentStore & CollectionStore & UsageStore & AccountStore>,
  caller: AgentCaller,
  agent: AgentSnapshot,
  projectId: string,
  input: { query: string; documentId?: string },
  persisted: boolean,
): Promise<AgentInvocation> {
  const scopedTo = await checkDocument(ctx.store, agent, projectId, input.documentId);
  const model = await projectModel(ctx, projectId, agent.model);
  const output = agent.outputSchema ? compileOutputSchema(agent.outputSchema) : null;
  const lease = await admit(ctx, projectId, agent.timeoutMs);
  const runId = persisted ? newId() : `preview-${newId()}`;
  return {
    runId,
    persisted,
    agent,
    projectId,
    query: input.query,
    documentId: scopedTo,
    model,
    output,
    createdBy: 'session' in caller ? caller.session.accountId : null,
    lease,
  };
}

/** Who invokes an agent (spec: a JWT of a project member, or an org-scoped API key). */
export type AgentCaller = { session: SessionClaims } | { orgKey: { orgId: string; keyId: string } };

/** The project of the path when the caller may invoke its agents: a member of its org, or a key of its org; 404 otherwise. */
async function callerProject(ctx: ContextPart<never, AccountStore>, caller: AgentCaller, path: { orgId: string; projectId: string }): Promise<Project> {
  if ('session' in caller) return requireProjectRole(ctx, caller.session, path, 'member');
  const project = isUuid(path.projectId) ? await ctx.store.getProject(path.projectId) : null;
  if (!project || project.orgId !== path.orgId || project.orgId !== caller.orgKey.orgId) throw notFound('Project');
  return project;
}

/**
 * The project of the path when the caller may preview drafts there. A draft is a write: it runs a prompt, tools and
 * allow-list of the caller's choosing on the project's provider key, so only an admin of the org may preview (what
 * an admin previews, they could save). An org key of the project's org is refused with 403, any other caller 404.
 */
async function previewerProject(ctx: ContextPart<never, AccountStore>, caller: AgentCaller, path: { orgId: string; projectId: string }): Promise<Project> {
  if ('session' in caller) return requireProjectRole(ctx, caller.session, path, 'admin', 'Previewing a draft agent');
  await callerProject(ctx, caller, path);
  throw new DossierError('forbidden', 'Previewing a draft agent needs a JWT of an org admin: org keys invoke saved agents only');
}

/** The saved agent of the project by slug (or id); 404 otherwise. */
export async function agentOf(store: AgentStore, projectId: string, idOrSlug: string): Promise<AgentRecord> {
  const agent = isUuid(idOrSlug) ? await store.getAgent(idOrSlug) : await store.findAgentBySlug(projectId, idOrSlug);
  if (!agent || agent.projectId !== projectId) throw notFound('Agent');
  return agent;
}

export const snapshotOf = ({ projectId: _p, ...agent }: AgentRecord): AgentSnapshot => agent;

/** A run of a saved agent (JWT member of the project). */
export async function planInvocation(
  ctx: ContextPart<'gate' | 'models' | 'plans', AccountStore & AgentStore & DocumentStore & CollectionStore & UsageStore>,
  caller: AgentCaller,
  path: { orgId: string; projectId: string },
  slug: string,
  raw: unknown,
): Promise<AgentInvocation> {
  const project = await callerProject(ctx, caller, path);
  const input = parseInput(invokeAgentSchema, raw);
  const agent = await agentOf(ctx.store, project.id, slug);
  return settle(ctx, caller, snapshotOf(agent), project.id, input, true);
}

/**
 * A preview (org admins only): the draft over the saved agent of that slug, or a new draft (which then needs
 * systemPrompt and model). The draft's allow-list is checked as saving it would be and enforced on every tool call
 * as a saved agent's is.
 */
export async function planPreview(
  ctx: ContextPart<'gate' | 'models' | 'plans', AccountStore & AgentStore & CollectionStore & DocumentStore & UsageStore>,
  caller: AgentCaller,
  path: { orgId: string; projectId: string },
  slug: string,
  raw: unknown,
): Promise<AgentInvocation> {
  const project = await previewerProject(ctx, caller, path);
  const input = parseInput(previewAgentSchema, raw);
  const saved = isUuid(slug) ? await ctx.store.getAgent(slug) : await ctx.store.findAgentBySlug(project.id, slug);
  const base = saved && saved.projectId === project.id ? snapshotOf(saved) : null;
  const { draft } = input;
  await checkCollections(ctx.store, project.id, draft.allowedCollectionIds);
  const systemPrompt = draft.systemPrompt ?? base?.systemPrompt;
  const model = draft.model ?? base?.model;
  if (!systemPrompt || !model) throw new DossierError('invalid_input', `draft: systemPrompt and model are required when no agent '${slug}' is saved`);
  const agent: AgentSnapshot = {
    id: base?.id ?? 'preview',
    slug,
    name: base?.name ?? slug,
    description: base?.description ?? null,
    systemPrompt,
    model,
    timeoutMs: draft.timeoutMs ?? base?.timeoutMs ?? AGENT_TIMEOUT_DEFAULT_MS,
    toolset: fullToolset({ ...base?.toolset, ...stripUndefined(draft.toolset ?? {}) }),
    allowedCollectionIds: draft.allowedCollectionIds !== undefined ? draft.allowedCollectionIds : (base?.allowedCollectionIds ?? null),
    outputSchema: draft.outputSchema !== undefined ? draft.outputSchema : (base?.outputSchema ?? null),
    createdBy: base?.createdBy ?? ('session' in caller ? caller.session.accountId : 'org-key'),
    createdAt: base?.createdAt ?? new Date().toISOString(),
    updatedAt: new Date().toISOString(),
  };
  return settle(ctx, caller, agent, project.id, input, false);
}
