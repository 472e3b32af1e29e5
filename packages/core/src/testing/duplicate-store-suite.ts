import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DuplicateGroupRecord, DuplicateRunRecord } from '../domain/duplicates.ts';
import type { Collection, DocumentRecord } from '../domain/types.ts';
import type { MetadataStore } from '../ports/metadata-store.ts';
import { collectionRecord, documentRecord, seedProject } from './seed.ts';

/** Conformance tests of the DuplicateStore part of a MetadataStore (run by metadataStoreSuite). */

const at = (second: number): string => new Date(Date.parse('2024-04-01T00:00:00.000Z') + second * 1000).toISOString();

async function seed(store: MetadataStore, count: number): Promise<{ collection: Collection; docs: DocumentRecord[] }> {
  const projectId = await seedProject(store, at(0));
  const collection = collectionRecord(projectId, 'Dups', at(1), { enableDeduplication: true, duplicateThreshold: 0.9 });
  await store.insertCollection(collection);
  const docs: DocumentRecord[] = [];
  for (let index = 0; index < count; index++) {
    const doc = documentRecord(collection.id, `doc-${index}.md`, at(2 + index));
    await store.insertDocument(doc);
    docs.push(doc);
  }
  return { collection, docs };
}

const group = (collection: Collection, docs: DocumentRecord[], second: number): DuplicateGroupRecord => ({
  id: randomUUID(),
  collectionId: collection.id,
  canonicalDocumentId: docs[0]!.id,
  detectedAt: at(second),
  members: docs.map((doc, index) => ({
    documentId: doc.id,
    filename: doc.filename,
    relationship: index === 0 ? 'canonical' : 'near_duplicate',
    coverageToCanonical: index === 0 ? null : 0.9,
    coverageFromCanonical: index === 0 ? null : 0.5,
    ...(index === 0
      ? {}
      : {
          sharedPassages: [
            { member: { start: 3, end: 40, excerpt: 'a passage – “quoted”' }, canonical: { start: 120, end: 158, excerpt: 'a passage – “quoted”' } },
          ],
        }),
  })),
});

export function duplicateStoreTests(store: () => MetadataStore): void {
  describe('near-duplicate fingerprints, groups and runs', () => {
    it('finds documents by shared fingerprints, ignores over-common ones, and pairs them', async () => {
      const { collection, docs } = await seed(store(), 3);
      const [a, b, c] = docs as [DocumentRecord, DocumentRecord, DocumentRecord];
      await store().putFingerprints([
        { documentId: a.id, collectionId: collection.id, shingleCount: 40, fingerprints: [1, 2, 3, 4] },
        { documentId: b.id, collectionId: collection.id, shingleCount: 20, fingerprints: [2, 3, 9] },
        { documentId: c.id, collectionId: collection.id, shingleCount: 10, fingerprints: [4, 9] },
      ]);
      const matches = await store().fingerprintMatches(collection.id, a.id, [1, 2, 3, 4], 10);
      expect(matches.sort((x, y) => y.shared - x.shared)).toEqual([
        { documentId: b.id, shared: 2, fingerprintCount: 3 },
        { documentId: c.id, shared: 1, fingerprintCount: 2 },
      ]);
      const pairs = await store().fingerprintPairs(collection.id, 2, 10);
      expect(pairs.map((pair) => [[pair.left.documentId, pair.right.documentId].sort(), pair.shared])).toEqual([[[a.id, b.id].sort(), 2]]);
      expect(await store().fingerprintMatches(collection.id, a.id, [2, 3], 1)).toEqual([]); // each held by two documents
      await store().putFingerprints([{ documentId: b.id, collectionId: collection.id, shingleCount: 20, fingerprints: [7] }]);
      expect(await store().fingerprintMatches(collection.id, a.id, [1, 2, 3, 4], 10)).toEqual([{ documentId: c.id, shared: 1, fingerprintCount: 2 }]);
      expect((await store().fingerprintedDocuments(collection.id)).sort()).toEqual([a.id, b.id, c.id].sort());
      await store().deleteFingerprints(c.id); // its content replaced (issue 43)
      expect(await store().fingerprintMatches(collection.id, a.id, [1, 2, 3, 4], 10)).toEqual([]);
      expect((await store().fingerprintedDocuments(collection.id)).sort()).toEqual([a.id, b.id].sort());
    });

    it('records fingerprints without postings, then rebuilds the postings of the collection at once', async () => {
      const { collection, docs } = await seed(store(), 4);
      const [a, b, c, d] = docs as [DocumentRecord, DocumentRecord, DocumentRecord, DocumentRecord];
      await store().putFingerprints([
        { documentId: a.id, collectionId: collection.id, shingleCount: 30, fingerprints: [1, 2, 3] },
        { documentId: b.id, collectionId: collection.id, shingleCount: 30, fingerprints: [1, 2, 8] },
      ]);
      await store().putDocumentFingerprints([
        { documentId: b.id, collectionId: collection.id, shingleCount: 30, fingerprints: [5, 6] },
        { documentId: c.id, collectionId: collection.id, shingleCount: 30, fingerprints: [1, 2, 3, 5] },
        { documentId: d.id, collectionId: collection.id, shingleCount: 30, fingerprints: [6, 7] },
      ]);
      // Lookups still see b's previous postings and nothing of c and d.
      expect(await store().fingerprintMatches(collection.id, a.id, [1, 2, 3], 10)).toEqual([{ documentId: b.id, shared: 2, fingerprintCount: 2 }]);
      expect((await store().fingerprintedDocuments(collection.id)).sort()).toEqual([a.id, b.id, c.id, d.id].sort());
      await store().rebuildFingerprintPostings(collection.id);
      expect(await store().fingerprintMatches(collection.id, a.id, [1, 2, 3], 10)).toEqual([{ documentId: c.id, shared: 3, fingerprintCount: 4 }]);
      const pairs = await store().fingerprintPairs(collection.id, 1, 10);
      const shared = pairs.map((pair) => [[pair.left.documentId, pair.right.documentId].sort().join(' '), pair.shared]).sort();
      expect(shared).toEqual(
        [
          [[a.id, c.id].sort().join(' '), 3],
          [[b.id, c.id].sort().join(' '), 1],
          [[b.id, d.id].sort().join(' '), 1],
        ].sort(),
      );
      await store().rebuildFingerprintPostings(collection.id); // again: the same postings, none twice
      expect(await store().fingerprintMatches(collection.id, a.id, [1, 2, 3], 10)).toEqual([{ documentId: c.id, shared: 3, fingerprintCount: 4 }]);
      await store().deleteDocument(c.id); // its postings go with it (they have no foreign key to cascade)
      expect(await store().fingerprintMatches(collection.id, a.id, [1, 2, 3], 10)).toEqual([]);
      expect((await store().fingerprintPairs(collection.id, 1, 10)).map((pair) => [pair.left.documentId, pair.right.documentId].sort())).toEqual([
        [b.id, d.id].sort(),
      ]);
    });

    it("stores groups with members, finds a document's group, replaces and deletes them, newest first", async () => {
      const { collection, docs } = await seed(store(), 4);
      const first = group(collection, docs.slice(0, 2), 10);
      const second = group(collection, docs.slice(2, 4), 11);
      await store().insertDuplicateGroup(first);
      await store().insertDuplicateGroup(second);
      expect(await store().getDuplicateGroup(first.id)).toEqual(first);
      expect((await store().duplicateGroupOf(docs[1]!.id))?.id).toBe(first.id);
      const page = await store().listDuplicateGroups(collection.id, 1, 0);
      expect([page.total, page.items.map((item) => item.id)]).toEqual([2, [second.id]]);
      const promoted = {
        ...first,
        canonicalDocumentId: docs[1]!.id,
        members: first.members.map((member) => ({
          ...member,
          relationship: member.documentId === docs[1]!.id ? ('canonical' as const) : ('near_duplicate' as const),
        })),
      };
      await store().replaceDuplicateGroup(promoted);
      expect((await store().getDuplicateGroup(first.id))?.canonicalDocumentId).toBe(docs[1]!.id);
      await store().deleteDuplicateGroup(first.id);
      expect(await store().getDuplicateGroup(first.id)).toBeNull();
      expect(await store().duplicateGroupOf(docs[0]!.id)).toBeNull();
    });

    it('remembers disbanded pairs either way round', async () => {
      const { collection, docs } = await seed(store(), 3);
      await store().dismissDuplicatePairs(
        collection.id,
        docs.map((doc) => doc.id),
      );
      await store().dismissDuplicatePairs(
        collection.id,
        docs.map((doc) => doc.id),
      );
      expect(await store().isDismissedPair(docs[2]!.id, docs[0]!.id)).toBe(true);
      expect(await store().isDismissedPair(docs[0]!.id, randomUUID())).toBe(false);
    });

    it('records runs, counts their jobs and returns the newest', async () => {
      const { collection } = await seed(store(), 0);
      const run: DuplicateRunRecord = {
        id: randomUUID(),
        collectionId: collection.id,
        status: 'pending',
        jobsEnqueued: 3,
        jobsProcessed: 0,
        duplicatesDetected: null,
        duplicateGroupsCreated: null,
        startedAt: null,
        completedAt: null,
        error: null,
        createdAt: at(20),
      };
      await store().insertDuplicateRun(run);
      expect((await store().countDuplicateJob(run.id)).jobsProcessed).toBe(1);
      expect((await store().countDuplicateJob(run.id)).jobsProcessed).toBe(2);
      await store().updateDuplicateRun(run.id, { status: 'completed', duplicatesDetected: 4, duplicateGroupsCreated: 2, completedAt: at(21) });
      expect(await store().latestDuplicateRun(collection.id)).toEqual({
        ...run,
        status: 'completed',
        jobsProcessed: 2,
        duplicatesDetected: 4,
        duplicateGroupsCreated: 2,
        completedAt: at(21),
      });
    });
  });
}
