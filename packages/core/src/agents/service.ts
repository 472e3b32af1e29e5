import type { AgentStore } from '../ports/agent-store.ts';
import type { AccountStore } from '../ports/account-store.ts';
import type { CollectionStore } from '../ports/collection-store.ts';
import type { SessionClaims } from '../auth/jwt.ts';
import type { ContextPart } from '../context.ts';
import { AGENT_TIMEOUT_DEFAULT_MS, type AgentPatch, type AgentRecord } from '../domain/agents.ts';
import { DossierError, notFound } from '../domain/errors.ts';
import { parseInput } from '../schemas.ts';
import { isUuid, newId, nowIso } from '../util/ids.ts';
import { requireProjectRole } from './access.ts';
import { checkCollections, fullToolset, stripUndefined } from './fields.ts';
import { compileOutputSchema } from './output.ts';
import { createAgentSchema, listAgentsQuerySchema, updateAgentSchema } from './schemas.ts';
import type { AgentService } from '../api/agents.ts';
import type { z } from 'zod';
import type * as responses from '../responses.ts';

/** Where an agent lives: the path's org and project. */
export interface ProjectPath {
  orgId: string;
  projectId: string;
}

/** An agent as the API shows it (spec: Agent). */
export type AgentView = z.output<typeof responses.agent>;

export const agentView = ({ projectId: _p, toolset, ...view }: AgentRecord): AgentView => ({ ...view, toolset: fullToolset(toolset) });

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

/** Hosted agents of a project: the management plane (JWT sessions; admins write, members read). */
export function agentService(ctx: ContextPart<never, AgentStore & AccountStore & CollectionStore>): AgentService {
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
      await checkCollections(ctx.store, project.id, input.allowedCollectionIds);
      if (input.outputSchema) compileOutputSchema(input.outputSchema);
      const now = nowIso();
      const agent: AgentRecord = {
        id: newId(),
        projectId: project.id,
        slug: input.slug,
        name: input.name,
        description: input.description ?? null,
        systemPrompt: input.systemPrompt,
        model: input.model,
        timeoutMs: input.timeoutMs,
        toolset: fullToolset(stripUndefined(input.toolset ?? {})),
        allowedCollectionIds: input.allowedCollectionIds,
        outputSchema: input.outputSchema ?? null,
        createdBy: claims.accountId,
        createdAt: now,
        updatedAt: now,
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
      await checkCollections(ctx.store, project.id, patch.allowedCollectionIds);
      if (patch.outputSchema) compileOutputSchema(patch.outputSchema);
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

export type { AgentService };
