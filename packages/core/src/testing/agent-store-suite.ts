import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type AgentRecord, type AgentRunRecord, type AgentRunStepRecord, AGENT_TOOLS, type AgentToolset } from '../domain/agents.ts';
import type { MetadataStore } from '../ports/metadata-store.ts';
import { seedProject as seedOne } from './seed.ts';

/** Conformance tests of the AgentStore part of a MetadataStore (run by metadataStoreSuite). */

const at = (second: number): string => new Date(Date.parse('2024-04-01T00:00:00.000Z') + second * 1000).toISOString();
const allTools = Object.fromEntries(AGENT_TOOLS.map((tool) => [tool, true])) as AgentToolset;

const seedProject = (store: MetadataStore): Promise<string> => seedOne(store, at(0));

const agent = (projectId: string, slug: string, second: number, over: Partial<AgentRecord> = {}): AgentRecord => ({
  id: randomUUID(),
  projectId,
  slug,
  name: `Agent ${slug}`,
  description: null,
  systemPrompt: 'You answer.',
  model: 'scripted',
  timeoutMs: 300_000,
  toolset: allTools,
  allowedCollectionIds: null,
  outputSchema: null,
  createdBy: randomUUID(),
  createdAt: at(second),
  updatedAt: at(second),
  ...over,
});

export function agentStoreTests(store: () => MetadataStore): void {
  describe('agents', () => {
    it('stores an agent with its JSON fields and finds it by id and by slug', async () => {
      const projectId = await seedProject(store());
      const saved = agent(projectId, 'helper', 1, {
        description: 'Finds things',
        toolset: { ...allTools, get_document: false },
        allowedCollectionIds: [randomUUID()],
        outputSchema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
      });
      await store().insertAgent(saved);
      expect(await store().getAgent(saved.id)).toEqual(saved);
      expect(await store().findAgentBySlug(projectId, 'helper')).toEqual(saved);
      expect(await store().findAgentBySlug(await seedProject(store()), 'helper')).toBeNull();
      expect(await store().getAgent(randomUUID())).toBeNull();
    });

    it('rejects a slug taken in the same project with conflict, but allows it in another project', async () => {
      const projectId = await seedProject(store());
      await store().insertAgent(agent(projectId, 'dup', 1));
      await expect(store().insertAgent(agent(projectId, 'dup', 2))).rejects.toMatchObject({ code: 'conflict' });
      await store().insertAgent(agent(await seedProject(store()), 'dup', 3));
      const other = agent(projectId, 'other', 4);
      await store().insertAgent(other);
      await expect(store().updateAgent(other.id, { slug: 'dup' })).rejects.toMatchObject({ code: 'conflict' });
    });

    it("lists a project's agents oldest first, a page at a time, saying whether more follow", async () => {
      const projectId = await seedProject(store());
      for (const [index, slug] of ['c', 'a', 'b'].entries()) await store().insertAgent(agent(projectId, slug, 10 + index));
      await store().insertAgent(agent(await seedProject(store()), 'elsewhere', 1));
      const first = await store().listAgents(projectId, { limit: 2, offset: 0 });
      expect(first.agents.map((entry) => entry.slug)).toEqual(['c', 'a']);
      expect(first.hasMore).toBe(true);
      const second = await store().listAgents(projectId, { limit: 2, offset: 2 });
      expect(second.agents.map((entry) => entry.slug)).toEqual(['b']);
      expect(second.hasMore).toBe(false);
    });

    it('updates only the given fields, clears nullable ones with null, and returns null for a missing agent', async () => {
      const projectId = await seedProject(store());
      const saved = agent(projectId, 'patchme', 1, { description: 'old', allowedCollectionIds: [randomUUID()], outputSchema: { type: 'object' } });
      await store().insertAgent(saved);
      const updated = await store().updateAgent(saved.id, { name: 'New', description: null, allowedCollectionIds: null, outputSchema: null, updatedAt: at(5) });
      expect(updated).toEqual({ ...saved, name: 'New', description: null, allowedCollectionIds: null, outputSchema: null, updatedAt: at(5) });
      expect(await store().updateAgent(randomUUID(), { name: 'x' })).toBeNull();
    });

    it('deletes an agent, and deleting a missing one is a no-op', async () => {
      const projectId = await seedProject(store());
      const saved = agent(projectId, 'gone', 1);
      await store().insertAgent(saved);
      await store().deleteAgent(saved.id);
      await store().deleteAgent(saved.id);
      expect(await store().getAgent(saved.id)).toBeNull();
      expect(await store().findAgentBySlug(projectId, 'gone')).toBeNull();
    });
  });

  describe('agent runs and steps', () => {
    const run = (saved: AgentRecord, second: number, over: Partial<AgentRunRecord> = {}): AgentRunRecord => {
      const { projectId: _p, ...snapshot } = saved;
      return {
        id: randomUUID(),
        agentId: saved.id,
        projectId: saved.projectId,
        query: 'q',
        documentId: null,
        status: 'running',
        response: '',
        sources: [],
        contradictionFlags: [],
        warnings: [],
        iterationsUsed: 0,
        error: null,
        usage: null,
        agentSnapshot: snapshot,
        createdBy: null,
        createdAt: at(second),
        completedAt: null,
        ...over,
      };
    };
    const step = (runId: string, stepIndex: number, kind: AgentRunStepRecord['kind']): AgentRunStepRecord => ({
      runId,
      stepIndex,
      kind,
      tool: kind === 'message' ? null : 'search_collection',
      collectionId: null,
      content: { n: stepIndex },
      createdAt: at(stepIndex),
    });

    it('ends a run with its steps and event in one go, lists runs newest first by status, pages steps, and deletes them', async () => {
      const projectId = await seedProject(store());
      const saved = agent(projectId, 'runner', 1);
      await store().insertAgent(saved);
      const first = run(saved, 10);
      const second = run(saved, 11);
      await store().insertAgentRun(first);
      await store().insertAgentRun(second);
      const ended: AgentRunRecord = {
        ...first,
        status: 'succeeded',
        response: 'done [S1]',
        iterationsUsed: 2,
        warnings: ['w'],
        structuredOutput: { ok: [1, 2] },
        usage: { inputTokens: 5, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0, modelCalls: 2, retries: 0 },
        completedAt: at(12),
      };
      const steps = [step(first.id, 0, 'message'), step(first.id, 1, 'tool_call'), step(first.id, 2, 'tool_result'), step(first.id, 3, 'message')];
      await store().finishAgentRun(ended, steps);
      expect(await store().getAgentRun(first.id)).toEqual(ended);
      expect((await store().getAgentRun(second.id))?.structuredOutput).toBeUndefined();
      expect((await store().listAgentRuns(saved.id, { limit: 10, offset: 0 })).runs.map((r) => r.id)).toEqual([second.id, first.id]);
      expect((await store().listAgentRuns(saved.id, { limit: 1, offset: 0 })).hasMore).toBe(true);
      expect((await store().listAgentRuns(saved.id, { limit: 10, offset: 0, status: 'succeeded' })).runs.map((r) => r.id)).toEqual([first.id]);
      const page = await store().listAgentRunSteps(first.id, { limit: 2, offset: 1 });
      expect(page).toEqual({ steps: [steps[1], steps[2]], hasMore: true });
      await store().deleteAgentRun(first.id);
      expect(await store().getAgentRun(first.id)).toBeNull();
      expect((await store().listAgentRunSteps(first.id, { limit: 10, offset: 0 })).steps).toEqual([]);
      // Ending a run deleted meanwhile records nothing; deleting the agent takes its runs along.
      await store().finishAgentRun({ ...ended }, steps);
      expect(await store().getAgentRun(first.id)).toBeNull();
      await store().deleteAgent(saved.id);
      expect(await store().getAgentRun(second.id)).toBeNull();
    });

    it('fails runs left running before a time, and only those', async () => {
      const projectId = await seedProject(store());
      const saved = agent(projectId, 'stale', 1);
      await store().insertAgent(saved);
      const old = run(saved, 10);
      const recent = run(saved, 100);
      const finished = run(saved, 5, { status: 'succeeded' });
      for (const entry of [old, recent, finished]) await store().insertAgentRun(entry);
      expect(await store().failStaleAgentRuns(at(50), 'crashed')).toBe(1);
      expect(await store().getAgentRun(old.id)).toMatchObject({ status: 'failed', error: 'crashed' });
      expect((await store().getAgentRun(recent.id))?.status).toBe('running');
      expect((await store().getAgentRun(finished.id))?.status).toBe('succeeded');
    });
  });
}
