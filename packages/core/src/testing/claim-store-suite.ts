import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ClaimRecord, ContradictionRecord, ContradictionRunRecord } from '../domain/claims.ts';
import type { Collection, DocumentRecord } from '../domain/types.ts';
import type { MetadataStore } from '../ports/metadata-store.ts';
import { collectionRecord, documentRecord, seedProject } from './seed.ts';

/**
 * Conformance tests of the ClaimStore part of a MetadataStore (run by metadataStoreSuite). `store()` is the
 * migrated, empty store of the current test.
 */

const at = (second: number): string => new Date(Date.parse('2024-03-01T00:00:00.000Z') + second * 1000).toISOString();

async function seed(store: MetadataStore, documentCount: number): Promise<{ collection: Collection; docs: DocumentRecord[] }> {
  const projectId = await seedProject(store, at(0));
  const collection = collectionRecord(projectId, 'Claims', at(1));
  await store.insertCollection(collection);
  const docs: DocumentRecord[] = [];
  for (let index = 0; index < documentCount; index++) {
    const doc = documentRecord(collection.id, `doc-${index}.md`, at(2 + index));
    await store.insertDocument(doc);
    docs.push(doc);
  }
  return { collection, docs };
}

const claim = (doc: DocumentRecord, position: number, importance: number): ClaimRecord => ({
  id: randomUUID(),
  collectionId: doc.collectionId,
  documentId: doc.id,
  sectionId: randomUUID(),
  sectionTitle: `Section ${position}`,
  text: `Claim ${position} of ${doc.filename}`,
  sourceText: position === 0 ? null : `quote ${position}`,
  importance,
  position,
  createdAt: at(10),
});

const contradiction = (claims: ClaimRecord[], second: number, over: Partial<ContradictionRecord> = {}): ContradictionRecord => ({
  id: randomUUID(),
  collectionId: claims[0]!.collectionId,
  severity: 'high',
  status: 'active',
  explanation: 'They differ.',
  clusterTopicSummary: 'Topic',
  suggestedInstruction: null,
  claims: claims.map((entry) => ({
    claimId: entry.id,
    text: entry.text,
    sourceText: entry.sourceText,
    documentId: entry.documentId,
    documentName: 'doc',
    sectionId: entry.sectionId,
    sectionTitle: entry.sectionTitle,
  })),
  fingerprint: claims
    .map((entry) => entry.id)
    .sort()
    .join(','),
  createdAt: at(second),
  ...over,
});

export function claimStoreTests(store: () => MetadataStore): void {
  describe('claims, the claim map and contradictions', () => {
    it("replaces a document's claims, filters by importance, and counts extracted documents and claims", async () => {
      const { collection, docs } = await seed(store(), 2);
      const [first, second] = docs as [DocumentRecord, DocumentRecord];
      await store().replaceDocumentClaims(first.id, [claim(first, 0, 5), claim(first, 1, 2)]);
      await store().replaceDocumentClaims(second.id, []);
      expect((await store().listDocumentClaims(first.id, 1)).map((entry) => entry.position)).toEqual([0, 1]);
      expect((await store().listDocumentClaims(first.id, 3)).map((entry) => entry.importance)).toEqual([5]);
      expect(await store().claimCounts(collection.id)).toEqual({ documents: 2, claims: 2 });
      const replaced = claim(first, 0, 4);
      await store().replaceDocumentClaims(first.id, [replaced]);
      expect(await store().listDocumentClaims(first.id, 1)).toEqual([replaced]);
      expect(await store().claimCounts(collection.id)).toEqual({ documents: 2, claims: 1 });
      await store().deleteDocumentClaims(first.id); // its content replaced (issue 43): no claim, not extracted
      expect(await store().listDocumentClaims(first.id, 1)).toEqual([]);
      expect(await store().claimCounts(collection.id)).toEqual({ documents: 1, claims: 0 });
      await store().deleteCollectionClaims(collection.id);
      expect(await store().listCollectionClaims(collection.id)).toEqual([]);
      expect(await store().claimCounts(collection.id)).toEqual({ documents: 0, claims: 0 });
    });

    it('keeps the claim map only for the claims version it was computed at', async () => {
      const { collection } = await seed(store(), 0);
      const item = {
        id: 'c1',
        text: 't',
        sourceText: null,
        documentId: 'd',
        documentName: 'n',
        sectionId: 's',
        sectionTitle: 'S',
        importance: 3,
        x: 0.5,
        y: -1,
      };
      await store().putClaimMap(collection.id, 'v1', [item]);
      expect(await store().getClaimMap(collection.id, 'v1')).toEqual([item]);
      expect(await store().getClaimMap(collection.id, 'v2')).toBeNull();
      await store().putClaimMap(collection.id, 'v2', []);
      expect(await store().getClaimMap(collection.id, 'v1')).toBeNull();
      await store().clearClaimMap(collection.id);
      expect(await store().getClaimMap(collection.id, 'v2')).toBeNull();
    });

    it('stores a contradiction once per fingerprint, filters by status, severity and document, newest first', async () => {
      const { collection, docs } = await seed(store(), 3);
      const [a, b, c] = docs.map((doc) => claim(doc, 1, 3)) as [ClaimRecord, ClaimRecord, ClaimRecord];
      const older = contradiction([a, b], 20);
      const newer = contradiction([b, c], 21, { severity: 'low' });
      expect(await store().insertContradictions([older, newer])).toBe(2);
      expect(await store().insertContradictions([contradiction([a, b], 22)])).toBe(0);
      const all = await store().listContradictions(collection.id, { status: 'active' }, 10);
      expect(all.total).toBe(2);
      expect(all.items.map((entry) => entry.id)).toEqual([newer.id, older.id]);
      expect(all.items[1]).toEqual(older);
      expect((await store().listContradictions(collection.id, { status: 'active' }, 1)).items).toHaveLength(1);
      const second = await store().listContradictions(collection.id, { status: 'active' }, 1, 1);
      expect([second.total, second.items.map((entry) => entry.id)]).toEqual([2, [older.id]]);
      expect((await store().listContradictions(collection.id, { status: 'active' }, 10, 2)).items).toEqual([]);
      expect((await store().listContradictions(collection.id, { status: 'active', severity: 'low' }, 10)).items.map((entry) => entry.id)).toEqual([newer.id]);
      expect((await store().listContradictions(collection.id, { status: 'active', documentId: a.documentId }, 10)).items.map((entry) => entry.id)).toEqual([
        older.id,
      ]);
      await store().setContradictionStatus(older.id, 'dismissed');
      expect((await store().getContradiction(older.id))?.status).toBe('dismissed');
      expect((await store().listContradictions(collection.id, { status: 'dismissed' }, 10)).total).toBe(1);
      expect(await store().getContradiction(randomUUID())).toBeNull();
    });

    it('records runs and returns the newest', async () => {
      const { collection } = await seed(store(), 0);
      expect(await store().latestContradictionRun(collection.id)).toBeNull();
      const run: ContradictionRunRecord = {
        id: randomUUID(),
        collectionId: collection.id,
        status: 'enqueued',
        claimsProcessed: null,
        clustersAnalyzed: null,
        contradictionsFound: null,
        model: null,
        startedAt: null,
        completedAt: null,
        error: null,
        createdAt: at(30),
      };
      await store().insertContradictionRun(run);
      await store().insertContradictionRun({ ...run, id: randomUUID(), createdAt: at(29) });
      await store().updateContradictionRun(run.id, {
        status: 'completed',
        claimsProcessed: 4,
        clustersAnalyzed: 1,
        contradictionsFound: 0,
        completedAt: at(31),
      });
      expect(await store().latestContradictionRun(collection.id)).toEqual({
        ...run,
        status: 'completed',
        claimsProcessed: 4,
        clustersAnalyzed: 1,
        contradictionsFound: 0,
        completedAt: at(31),
      });
    });
  });
}
