import type { DocumentStore } from '../ports/document-store.ts';
import type { CollectionStore } from '../ports/collection-store.ts';
import type { DuplicateStore } from '../ports/duplicate-store.ts';
import { type Access, requireCollection } from '../access.ts';
import type { ContextPart, DossierContext } from '../context.ts';
import type { DuplicateGroupRecord, DuplicateRunRecord } from '../domain/duplicates.ts';
import { invalid, notFound } from '../domain/errors.ts';
import type { Collection, DocumentRecord } from '../domain/types.ts';
import type { Job } from '../ports/job-queue.ts';
import { isUuid } from '../util/ids.ts';
import { checkDocument } from './check.ts';
import { compareMembers, type DuplicateComparison } from './compare.ts';
import { DUPLICATE_JOBS, runFingerprintJob, runGroupJob, startDetection } from './detect.ts';
import { disbandGroup, leaveGroup, promoteMember, syncIndexFlags } from './groups.ts';
import { ProfileCache } from './texts.ts';
import type { DuplicateService } from '../api/duplicates.ts';
import type { z } from 'zod';
import type * as responses from '../responses.ts';

/** A group as the API shows it (spec: DuplicateGroup). */
export type DuplicateGroupView = z.output<typeof responses.duplicateGroup>;
/** A run as the API shows it (spec: DuplicateRun). */
export type DuplicateRunView = z.output<typeof responses.duplicateRun>;

const groupView = ({ collectionId: _c, ...view }: DuplicateGroupRecord): DuplicateGroupView => view;
const runView = ({ collectionId: _c, ...view }: DuplicateRunRecord): DuplicateRunView => view;

/** After `ready`, with enableDeduplication: queue the incremental check (never blocks ready). */
export async function enqueueDuplicateCheck(ctx: ContextPart<'queue' | 'wakeWorkers'>, collection: Collection, documentId: string): Promise<void> {
  if (!collection.enableDeduplication) return;
  await ctx.queue.enqueue({ type: DUPLICATE_JOBS.check, payload: { documentId }, maxAttempts: 3, dedupeKey: `${DUPLICATE_JOBS.check}:${documentId}` });
  ctx.wakeWorkers();
}

async function runCheckJob(
  ctx: ContextPart<'blobs' | 'index' | 'queue' | 'wakeWorkers', DocumentStore & CollectionStore & DuplicateStore>,
  job: Job,
): Promise<void> {
  const doc = await ctx.store.getDocument(String(job.payload.documentId));
  const collection = doc ? await ctx.store.getCollection(doc.collectionId) : null;
  if (!doc || !collection || collection.deletedAt || doc.status !== 'ready' || !collection.enableDeduplication) return;
  await checkDocument(ctx, collection, doc);
}

/** Job handlers of near-duplicate detection, keyed by job type. */
export function duplicateHandlers(ctx: DossierContext): Record<string, (job: Job) => Promise<void>> {
  return {
    [DUPLICATE_JOBS.check]: (job) => runCheckJob(ctx, job),
    [DUPLICATE_JOBS.fingerprint]: (job) => runFingerprintJob(ctx, job),
    [DUPLICATE_JOBS.group]: (job) => runGroupJob(ctx, job),
    [DUPLICATE_JOBS.flags]: (job) => syncIndexFlags(ctx, String(job.payload.collectionId), (job.payload.documentIds as string[]).map(String)),
  };
}

/** Before a document is deleted: its group hands over or dissolves (see groups.ts leaveGroup). */
export async function forgetDuplicate(ctx: DossierContext, collection: Collection, doc: DocumentRecord): Promise<void> {
  await leaveGroup(ctx, collection, doc.id, new ProfileCache(ctx, 64));
}

/** Near-duplicate detection and group review of collections the caller owns. */
export function duplicateService(ctx: DossierContext): DuplicateService {
  async function groupOf(access: Access, collectionId: string, groupId: string) {
    const collection = await requireCollection(ctx.store, access, collectionId, 'write');
    const group = isUuid(groupId) ? await ctx.store.getDuplicateGroup(groupId) : null;
    if (!group || group.collectionId !== collection.id) throw notFound('Duplicate group');
    return { collection, group };
  }

  return {
    /** Start a detection run over every ready document (202; 409 while one is in flight). */
    async detect(access: Access, collectionId: string) {
      const run = await startDetection(ctx, await requireCollection(ctx.store, access, collectionId, 'write'));
      return { runId: run.id, status: 'pending' as const, jobsEnqueued: run.jobsEnqueued ?? 0, enqueuedAt: run.createdAt };
    },
    /** The newest run (404 before the first). */
    async latestRun(access: Access, collectionId: string): Promise<DuplicateRunView> {
      const collection = await requireCollection(ctx.store, access, collectionId, 'write');
      const run = await ctx.store.latestDuplicateRun(collection.id);
      if (!run) throw notFound('Duplicate detection run');
      return runView(run);
    },
    /** A page of groups, newest first. */
    async list(access: Access, collectionId: string, page: { limit: number; offset: number }): Promise<{ total: number; items: DuplicateGroupView[] }> {
      const collection = await requireCollection(ctx.store, access, collectionId, 'write');
      const { total, items } = await ctx.store.listDuplicateGroups(collection.id, page.limit, page.offset);
      return { total, items: items.map(groupView) };
    },
    /** Any two members side by side: coverage both ways and the passages they share (400 unless both are members). */
    async compare(access: Access, collectionId: string, groupId: string, pair: { left?: string; right?: string }): Promise<DuplicateComparison> {
      const { group } = await groupOf(access, collectionId, groupId);
      if (!pair.left || !pair.right) throw invalid('left and right are both required: the document ids of two members of the group');
      return compareMembers(ctx, group, pair.left, pair.right);
    },
    /** Make a member canonical (spec: promote). */
    async promote(access: Access, collectionId: string, groupId: string, canonicalDocumentId: string): Promise<{ success: true; changed: boolean }> {
      const { collection, group } = await groupOf(access, collectionId, groupId);
      if (!group.members.some((member) => member.documentId === canonicalDocumentId)) throw invalid('canonicalDocumentId is not a member of this group');
      return { success: true, changed: await promoteMember(ctx, collection, group, canonicalDocumentId, new ProfileCache(ctx, 64)) };
    },
    /** Disband a group: every member back in retrieval (spec: disband). */
    async disband(access: Access, collectionId: string, groupId: string): Promise<{ success: true; groupId: string; members: number }> {
      const { collection, group } = await groupOf(access, collectionId, groupId);
      await disbandGroup(ctx, collection, group);
      return { success: true, groupId: group.id, members: group.members.length };
    },
  };
}

export type { DuplicateService };
