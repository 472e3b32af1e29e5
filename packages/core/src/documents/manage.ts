import type { DocumentStore } from '../ports/document-store.ts';
import { forgetDuplicate } from '../duplicates/service.ts';
import { type Access, collectionPrefix, requireCollection, requireDocument } from '../access.ts';
import { type ContextPart, type DossierContext, documentTopic, setDocumentStatus } from '../context.ts';
import { DossierError, notFound } from '../domain/errors.ts';
import type { Collection, DocumentEvent, DocumentRecord, Metadata, SectionRecord } from '../domain/types.ts';
import { enqueueIngest } from '../ingest/pipeline.ts';
import {
  batchDeleteSchema,
  bulkPatchSchema,
  type DocumentPatchInput,
  documentPatchSchema,
  type ListDocumentsInput,
  listDocumentsSchema,
  type ManifestQueryInput,
  manifestQuerySchema,
  parseInput,
} from '../schemas.ts';
import { metadataPairs } from '../util/canonical-json.ts';
import { type PageSpan, pageOffsetsOf, pageSpan } from './pages.ts';
import { type DocumentView, documentView, normalizeTags } from './view.ts';
import type { DocumentService } from '../api/documents.ts';
import type { z } from 'zod';
import type * as responses from '../responses.ts';

/** The wait endpoint gives up after 5 minutes (spec: Limits). */
export const WAIT_TIMEOUT_MS = 5 * 60 * 1000;

/** Section as the API shows it, with the pages it spans when its document has pages. */
export type SectionView = z.output<typeof responses.section>;
export const sectionView = ({ collectionId: _c, ...s }: SectionRecord): SectionView => s;

const isTerminal = (d: DocumentRecord): boolean => d.status === 'ready' || d.status === 'error';

/** Reading, patching, deleting and re-running documents. */
export function documentService(ctx: DossierContext): DocumentService {
  async function inCollection(c: Collection, id: string): Promise<DocumentRecord> {
    const doc = await ctx.store.getDocument(id);
    if (!doc || doc.collectionId !== c.id || doc.deletedAt) throw notFound(`Document ${id}`);
    return doc;
  }

  async function applyPatch(c: Collection, doc: DocumentRecord, p: DocumentPatchInput): Promise<DocumentRecord> {
    const tags = p.tags ? normalizeTags(p.tags) : doc.tags;
    const metadata = p.metadata ? ((p.replaceMetadata ? p.metadata : { ...doc.metadata, ...p.metadata }) as Metadata) : doc.metadata;
    const updated = await ctx.store.updateDocument(doc.id, { tags, metadata });
    await ctx.index.updateDocumentAttributes(c.id, doc.id, { tags, metadataPairs: metadataPairs(metadata) });
    return updated;
  }

  async function removeDocument(c: Collection, doc: DocumentRecord): Promise<void> {
    await forgetDuplicate(ctx, c, doc);
    await ctx.index.deleteDocument(c.id, doc.id);
    await ctx.blobs.deletePrefix(`${collectionPrefix(c)}${doc.id}/`);
    await ctx.store.deleteDocument(doc.id);
  }

  /**
   * Runs the pipeline again on the stored file as it is now: one an operator replaced (or a power cut cut short, see
   * convert-step.ts) is taken with its new size, and hashed again when converted.
   */
  async function requeue(doc: DocumentRecord, status: 'processing' | 'uploading'): Promise<DocumentRecord> {
    const stored = doc.storageKey ? await ctx.blobs.stat(doc.storageKey) : null;
    if (!stored) throw new DossierError('invalid_input', `Document ${doc.id} has no stored file to retry; upload it again`);
    const replaced = stored.size !== doc.fileSizeBytes ? { fileSizeBytes: stored.size, contentHash: null } : {};
    const updated = await setDocumentStatus(ctx, doc, status, { errorMessage: null, ...replaced });
    await enqueueIngest(ctx, doc.id);
    return updated;
  }

  return {
    async list(access: Access, collectionId: string, raw: ListDocumentsInput = {}) {
      const c = await requireCollection(ctx.store, access, collectionId, 'read');
      const q = parseInput(listDocumentsSchema, raw);
      const page = await ctx.store.listDocuments(c.id, { ...q, tags: q.tags && normalizeTags(q.tags), anyTags: q.anyTags && normalizeTags(q.anyTags) });
      return { documents: page.documents.map(documentView), total: page.total };
    },
    async get(access: Access, id: string): Promise<DocumentView> {
      return documentView((await requireDocument(ctx, access, id, 'read')).doc);
    },
    /** Resolve when the document is ready or in error; throws timeout after timeoutMs. */
    async wait(access: Access, id: string, timeoutMs = WAIT_TIMEOUT_MS, signal?: AbortSignal): Promise<DocumentView> {
      const { doc } = await requireDocument(ctx, access, id, 'read');
      return documentView(await waitForTerminal(ctx, doc, timeoutMs, signal));
    },
    async markdown(access: Access, id: string): Promise<string> {
      const { doc } = await requireDocument(ctx, access, id, 'read');
      if (!doc.markdownStorageKey) throw notFound('Markdown (processing is not complete)');
      return new TextDecoder().decode(await ctx.blobs.get(doc.markdownStorageKey));
    },
    /** Sections in order; for paged documents each also says which pages it spans. */
    async sections(access: Access, id: string): Promise<(SectionView & Partial<PageSpan>)[]> {
      const { doc, collection } = await requireDocument(ctx, access, id, 'read');
      const offsets = await pageOffsetsOf(ctx, collection, doc.id);
      return (await ctx.store.listSections(doc.id)).map((s) => ({
        ...sectionView(s),
        ...(offsets ? pageSpan(offsets, s.markdownOffsetStart, s.markdownOffsetEnd) : {}),
      }));
    },
    async remove(access: Access, id: string): Promise<void> {
      const { doc, collection } = await requireDocument(ctx, access, id, 'write');
      await removeDocument(collection, doc);
    },
    async batchRemove(access: Access, collectionId: string, raw: unknown): Promise<void> {
      const c = await requireCollection(ctx.store, access, collectionId, 'write');
      const { ids } = parseInput(batchDeleteSchema, raw);
      const docs = await Promise.all([...new Set(ids)].map((id) => inCollection(c, id)));
      for (const doc of docs) await removeDocument(c, doc);
    },
    async retry(access: Access, id: string): Promise<DocumentView> {
      const { doc } = await requireDocument(ctx, access, id, 'write');
      if (doc.status !== 'error') throw new DossierError('invalid_input', `Only documents in error can be retried (status is ${doc.status})`);
      return documentView(await requeue(doc, 'processing'));
    },
    async retryFailed(access: Access, collectionId: string): Promise<DocumentView[]> {
      const c = await requireCollection(ctx.store, access, collectionId, 'write');
      const failed = await ctx.store.listDocuments(c.id, { status: 'error', limit: 100_000, offset: 0 });
      const out: DocumentView[] = [];
      for (const doc of failed.documents) out.push(documentView(await requeue(doc, 'uploading')));
      return out;
    },
    async patch(access: Access, collectionId: string, docId: string, raw: DocumentPatchInput): Promise<DocumentView> {
      const c = await requireCollection(ctx.store, access, collectionId, 'write');
      const p = parseInput(documentPatchSchema, raw);
      return documentView(await applyPatch(c, await inCollection(c, docId), p));
    },
    async bulkPatch(access: Access, collectionId: string, raw: unknown): Promise<DocumentView[]> {
      const c = await requireCollection(ctx.store, access, collectionId, 'write');
      const { documents } = parseInput(bulkPatchSchema, raw);
      const docs = await Promise.all(documents.map((d) => inCollection(c, d.id)));
      // An id may appear more than once: each item applies to the record left by the previous one, not a stale read.
      const latest = new Map(docs.map((d) => [d.id, d]));
      const out: DocumentView[] = [];
      for (const item of documents) {
        const updated = await applyPatch(c, latest.get(item.id)!, item);
        latest.set(item.id, updated);
        out.push(documentView(updated));
      }
      return out;
    },
    /** Issue 43: the collection's documents that came from a source path, by path, a page at a time. */
    async manifest(access: Access, collectionId: string, raw: ManifestQueryInput = {}) {
      const c = await requireCollection(ctx.store, access, collectionId, 'read');
      const q = parseInput(manifestQuerySchema, raw);
      const entries = await ctx.store.listSourceManifest(c.id, q.after ?? null, q.limit, q.prefix);
      return { entries, nextCursor: entries.length === q.limit ? entries[entries.length - 1]!.path : null };
    },
    async tags(access: Access, collectionId: string) {
      const c = await requireCollection(ctx.store, access, collectionId, 'read');
      const [tags, hasMetadata] = await Promise.all([ctx.store.tagCounts(c.id), ctx.store.hasMetadata(c.id)]);
      return { tags, hasMetadata };
    },
  };
}

/**
 * How often a wait reads the document again whatever the events say. Events can be lost between nodes (Redis pub/sub
 * delivers at most once: a subscriber reconnecting misses what was published meanwhile), so a lost `ready` costs a
 * waiter at most this long instead of the whole 5 minutes.
 */
export const WAIT_RECHECK_MS = 5_000;

/** Wait on the event bus until the document reaches ready or error (reading it again every WAIT_RECHECK_MS). */
async function waitForTerminal(
  ctx: ContextPart<'events', DocumentStore>,
  doc: DocumentRecord,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<DocumentRecord> {
  if (isTerminal(doc)) return doc;
  return new Promise<DocumentRecord>((resolve, reject) => {
    let done = false;
    const finish = (fn: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearInterval(recheck);
      unsubscribe();
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const check = async () => {
      const fresh = await ctx.store.getDocument(doc.id);
      if (!fresh) finish(() => reject(notFound('Document')));
      else if (isTerminal(fresh)) finish(() => resolve(fresh));
    };
    const unsubscribe = ctx.events.subscribe(documentTopic(doc.collectionId), (e) => {
      if ((e as DocumentEvent).documentId === doc.id) void check().catch((err) => finish(() => reject(err)));
    });
    const timer = setTimeout(() => finish(() => reject(new DossierError('timeout', 'The document did not finish processing within 5 minutes'))), timeoutMs);
    const recheck = setInterval(() => void check().catch((err) => finish(() => reject(err))), WAIT_RECHECK_MS);
    const onAbort = () => finish(() => reject(new DossierError('timeout', 'The wait was cancelled')));
    signal?.addEventListener('abort', onAbort);
    void check().catch((err) => finish(() => reject(err)));
  });
}

export type { DocumentService };
