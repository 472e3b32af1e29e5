import type { SessionClaims } from '../auth/jwt.ts';
import type { DossierContext } from '../context.ts';
import { AGENT_TIMEOUT_DEFAULT_MS, AGENT_TOOLS, type AgentPatch, type AgentRecord, type AgentToolset } from '../domain/agents.ts';
import { DossierError, notFound } from '../domain/errors.ts';
import { parseInput } from '../schemas.ts';
import { isUuid, newId, nowIso } from '../util/ids.ts';
import { requireProjectRole } from './access.ts';
import { createAgentSchema, listAgentsQuerySchema, updateAgentSchema } from './schemas.ts';

/** Where an agent lives: the path's org and project. */
export interface ProjectPath {
  orgId: string;
  projectId: string;
}

/** An agent as the API shows it (spec: Agent). */
export type AgentView = Omit<AgentRecord, 'projectId'>;

/** Every tool on, then the given switches (omitted keys stay enabled); keys in the spec's order. */
export const fullToolset = (switches: Partial<AgentToolset> = {}): AgentToolset =>
  Object.fromEntries(AGENT_TOOLS.map((tool) => [tool, switches[tool] ?? true])) as AgentToolset;

export const agentView = ({ projectId: _p, toolset, ...view }: AgentRecord): AgentView => ({ ...view, toolset: fullToolset(toolset) });

/** Allow-listed collections must be live collections of the agent's project (either sandbox). */
async function checkCollections(ctx: DossierContext, projectId: string, ids: string[] | null | undefined): Promise<void> {
  for (const id of ids ?? []) {
    const collection = await ctx.store.getCollection(id);
    if (!collection || collection.deletedAt || collection.projectId !== projectId) {
      throw new DossierError('invalid_input', `allowedCollectionIds: collection ${id} is not a collection of this project`);
    }
  }
}

/** The RFC 7396 merge of a parsed patch onto an agent: what the store is asked to write. */
function mergePatch(agent: AgentRecord, patch: ReturnType<typeof updateAgentSchema.parse>): AgentPatch {
  const { confirmSlugChange, timeoutMs, toolset, ...rest } = patch;
  if (rest.slug !== undefined && rest.slug !== agent.slug && confirmSlugChange !== true) {
    throw new DossierError('invalid_input', 'Changing the slug breaks callers that invoke it: send confirmSlugChange: true to change it');
  }
  const merged: AgentPatch = { ...rest, updatedAt: nowIso() };
  if (timeoutMs !== undefined) merged.timeoutMs = timeoutMs ?? AGENT_TIMEOUT_DEFAULT_MS;
  if (toolset !== undefined) merged.toolset = toolset === null ? fullToolset() : fullToolset({ ...agent.toolset, ...stripUndefined(toolset) });
  return merged;
}

const stripUndefined = <T extends object>(value: T): Partial<T> =>
  Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;

/** Hosted agents of a project: the management plane (JWT sessions; admins write, members read). */
export function agentService(ctx: DossierContext) {
  /** The agent of the path's project by id or slug; 404 otherwise. */
  async function agentOf(projectId: string, idOrSlug: string): Promise<AgentRecord> {
    const agent = isUuid(idOrSlug) ? await ctx.store.getAgent(idOrSlug) : await ctx.store.findAgentBySlug(projectId, idOrSlug);
    if (!agent || agent.projectId !== projectId) throw notFound('Agent');
    return agent;
  }

  return {
    async create(claims: SessionClaims, path: ProjectPath, raw: unknown): Promise<AgentView> {
      const project = await requireProjectRole(ctx, claims, path, 'admin');
      const input = parseInput(createAgentSchema, raw);
      await checkCollections(ctx, project.id, input.allowedCollectionIds);
      const now = nowIso();
      const agent: AgentRecord = {
        id: newId(), projectId: project.id, slug: input.slug, name: input.name, description: input.description ?? null,
        systemPrompt: input.systemPrompt, model: input.model, timeoutMs: input.timeoutMs, toolset: fullToolset(stripUndefined(input.toolset ?? {})),
        allowedCollectionIds: input.allowedCollectionIds, outputSchema: input.outputSchema ?? null, createdBy: claims.accountId,
        createdAt: now, updatedAt: now,
      };
      await ctx.store.insertAgent(agent);
      return agentView(agent);
    },
    async list(claims: SessionClaims, path: ProjectPath, rawQuery: unknown): Promise<{ agents: AgentView[]; hasMore: boolean }> {
      const project = await requireProjectRole(ctx, claims, path, 'member');
      const page = await ctx.store.listAgents(project.id, parseInput(listAgentsQuerySchema, rawQuery ?? {}));
      return { agents: page.agents.map(agentView), hasMore: page.hasMore };
    },
    async get(claims: SessionClaims, path: ProjectPath, idOrSlug: string): Promise<AgentView> {
      const project = await requireProjectRole(ctx, claims, path, 'member');
      return agentView(await agentOf(project.id, idOrSlug));
    },
    async update(claims: SessionClaims, path: ProjectPath, idOrSlug: string, raw: unknown): Promise<AgentView> {
      const project = await requireProjectRole(ctx, claims, path, 'admin');
      const patch = parseInput(updateAgentSchema, raw);
      const agent = await agentOf(project.id, idOrSlug);
      await checkCollections(ctx, project.id, patch.allowedCollectionIds);
      const updated = await ctx.store.updateAgent(agent.id, mergePatch(agent, patch));
      if (!updated) throw notFound('Agent');
      return agentView(updated);
    },
    async remove(claims: SessionClaims, path: ProjectPath, idOrSlug: string): Promise<void> {
      const project = await requireProjectRole(ctx, claims, path, 'admin');
      await ctx.store.deleteAgent((await agentOf(project.id, idOrSlug)).id);
    },
  };
}

export type AgentService = ReturnType<typeof agentService>;
