import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { EvaluationRunRecord, GoldenProposalRecord, GoldenSetRecord } from '../ports/evaluation-store.ts';
import type { MetadataStore } from '../ports/metadata-store.ts';
import { seedCollection, seedProject } from './seed.ts';

/** Conformance tests of the EvaluationStore part of a MetadataStore (issue 38; run by metadataStoreSuite). */

const at = (second: number): string => new Date(Date.parse('2024-05-01T00:00:00.000Z') + second * 1000).toISOString();

const evaluatedCollection = async (store: MetadataStore): Promise<string> => seedCollection(store, await seedProject(store, at(0)), 'Evaluated', at(1));

const goldenSet = (collectionId: string, id: string, version: number, second: number): GoldenSetRecord => ({
  id,
  version,
  collectionId,
  name: `set v${version}`,
  matchBy: 'filename',
  createdAt: at(second),
  queries: [{ id: 'q1', query: 'what tides do', relevant: [{ target: 'tides', grade: 2 }] }],
});

const run = (collectionId: string, setId: string, second: number): EvaluationRunRecord => ({
  id: randomUUID(),
  collectionId,
  setId,
  setVersion: 1,
  trigger: 'manual',
  createdAt: at(second),
  status: 'completed',
  error: null,
  progress: null,
  shadowIndex: null,
  settings: { queryExpansion: 'rm3', enableReranking: false, limit: 10, lexicalWeight: 1, vectorWeight: 1, rrfK: 60 },
  metrics: { ndcg10: 0.625, recall: 0.5, mrr: 0.5, k: 10, queries: 1, latencyP50Ms: 1.5, latencyP95Ms: 2.25 },
  perQuery: [
    {
      id: 'q1',
      query: 'what tides do',
      ndcg10: 0.625,
      recall: 0.5,
      reciprocalRank: 0.5,
      latencyMs: 1.5,
      expected: [{ target: 'tides', grade: 2, rank: 2 }],
      returned: ['x', 'tides'],
    },
  ],
});

export function evaluationStoreTests(store: () => MetadataStore): void {
  describe('evaluation store (issue 38)', () => {
    it('keeps every version of a golden set, lists the newest of each, and deletes all versions', async () => {
      const s = store();
      const cid = await evaluatedCollection(s);
      const [a, b] = [randomUUID(), randomUUID()];
      await s.insertGoldenSet(goldenSet(cid, a, 1, 2));
      await s.insertGoldenSet(goldenSet(cid, a, 2, 3));
      await s.insertGoldenSet(goldenSet(cid, b, 1, 4));
      expect(await s.getGoldenSet(a)).toEqual(goldenSet(cid, a, 2, 3));
      expect(await s.getGoldenSet(a, 1)).toEqual(goldenSet(cid, a, 1, 2));
      expect(await s.getGoldenSet(a, 9)).toBeNull();
      expect((await s.listGoldenSets(cid)).map((g) => [g.id, g.version])).toEqual([
        [a, 2],
        [b, 1],
      ]);
      await expect(s.insertGoldenSet(goldenSet(cid, a, 2, 5))).rejects.toThrow();
      await s.deleteGoldenSet(a);
      expect(await s.getGoldenSet(a)).toBeNull();
      expect((await s.listGoldenSets(cid)).map((g) => g.id)).toEqual([b]);
    });

    it('stores runs with their figures as given, newest first', async () => {
      const s = store();
      const cid = await evaluatedCollection(s);
      const [first, second] = [run(cid, 'set', 2), run(cid, 'set', 3)];
      await s.insertEvaluationRun(first);
      await s.insertEvaluationRun(second);
      expect(await s.getEvaluationRun(first.id)).toEqual(first);
      expect(await s.getEvaluationRun(randomUUID())).toBeNull();
      expect((await s.listEvaluationRuns(cid, 10)).map((r) => r.id)).toEqual([second.id, first.id]);
      expect(await s.listEvaluationRuns(cid, 1)).toEqual([second]);
    });

    it('stores a running run without figures and updates its progress, shadow table, figures and status', async () => {
      const s = store();
      const cid = await evaluatedCollection(s);
      const done = run(cid, 'set', 2);
      const queued: EvaluationRunRecord = {
        ...done,
        status: 'running',
        metrics: null,
        perQuery: [],
        progress: { stage: 'indexing', done: 0, total: 3 },
        shadowIndex: 'shadow-x',
      };
      await s.insertEvaluationRun(queued);
      expect(await s.getEvaluationRun(queued.id)).toEqual(queued);
      await s.updateEvaluationRun(queued.id, { progress: { stage: 'searching', done: 1, total: 1 } });
      expect((await s.getEvaluationRun(queued.id))?.progress).toEqual({ stage: 'searching', done: 1, total: 1 });
      await s.updateEvaluationRun(queued.id, { status: 'completed', metrics: done.metrics, perQuery: done.perQuery, progress: null, shadowIndex: null });
      expect(await s.getEvaluationRun(queued.id)).toEqual(done);
      await s.updateEvaluationRun(queued.id, { status: 'failed', error: 'broken' });
      expect(await s.getEvaluationRun(queued.id)).toMatchObject({ status: 'failed', error: 'broken' });
    });

    it('puts, replaces and deletes the guard of a collection', async () => {
      const s = store();
      const cid = await evaluatedCollection(s);
      expect(await s.getEvaluationGuard(cid)).toBeNull();
      await s.putEvaluationGuard({ collectionId: cid, setId: 'a', maxNdcgDrop: 0.01, updatedAt: at(2) });
      await s.putEvaluationGuard({ collectionId: cid, setId: 'b', maxNdcgDrop: 0.025, updatedAt: at(3) });
      expect(await s.getEvaluationGuard(cid)).toEqual({ collectionId: cid, setId: 'b', maxNdcgDrop: 0.025, updatedAt: at(3) });
      await s.deleteEvaluationGuard(cid);
      expect(await s.getEvaluationGuard(cid)).toBeNull();
    });

    it('stores proposals, lists them by status, and records one decision only', async () => {
      const s = store();
      const cid = await evaluatedCollection(s);
      const proposal = (second: number): GoldenProposalRecord => ({
        id: randomUUID(),
        collectionId: cid,
        documentId: randomUUID(),
        sectionId: randomUUID(),
        sectionTitle: 'Tides',
        excerpt: 'Tides decide…',
        question: 'When may ships enter?',
        status: 'proposed',
        setId: null,
        setVersion: null,
        createdAt: at(second),
        decidedAt: null,
      });
      const [first, second] = [proposal(2), proposal(3)];
      await s.insertGoldenProposals([second, first]);
      await s.insertGoldenProposals([]);
      expect(await s.getGoldenProposal(first.id)).toEqual(first);
      expect(await s.getGoldenProposal(randomUUID())).toBeNull();
      expect((await s.listGoldenProposals(cid)).map((p) => p.id)).toEqual([first.id, second.id]);
      const decision = { status: 'accepted' as const, question: 'When may large ships enter?', setId: 'set', setVersion: 2, decidedAt: at(4) };
      expect(await s.decideGoldenProposal(first.id, decision)).toBe(true);
      expect(await s.decideGoldenProposal(first.id, { ...decision, status: 'rejected' })).toBe(false);
      expect(await s.getGoldenProposal(first.id)).toEqual({ ...first, ...decision });
      expect((await s.listGoldenProposals(cid, 'proposed')).map((p) => p.id)).toEqual([second.id]);
      expect((await s.listGoldenProposals(cid, 'accepted')).map((p) => p.id)).toEqual([first.id]);
    });
  });
}
