import type { WebhookStore } from '../ports/webhook-store.ts';
import type { SourceDocumentStore } from '../ports/source-store.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import pLimit from 'p-limit';
import { collectionPrefix } from '../access.ts';
import type { ContextPart, DossierContext } from '../context.ts';
import type { Collection, DocumentRecord } from '../domain/types.ts';
import { forgetDuplicate } from '../duplicates/service.ts';
import { DIRECT_UPLOAD_MAX_BYTES, type UploadServiceWithInternals } from '../documents/uploads.ts';
import type { DocumentView } from '../documents/view.ts';
import { serviceEvent } from '../events/catalogue.ts';
import { DossierError } from '../domain/errors.ts';
import type { S3EndpointCheck, S3SourceOpener, SourceEntry, SourceReader } from '../ports/source-reader.ts';
import type { ManifestEntry } from '../ports/source-store.ts';
import { newId, nowIso } from '../util/ids.ts';
import { folderReader } from './folder.ts';
import { s3ConfigOf } from './s3.ts';
import type { SourceRecord, SourceRunRecord } from './types.ts';

/**
 * Settings of server-side sources: the folders they may read, how long a deletion stays soft, how S3 prefixes are
 * opened (null: S3 sources refused) and which endpoints they may use (null: any), the lease of a source's run lock (renewed while the run goes on), and the largest
 * file a run ingests (the server's upload limit; a larger one is a failed entry).
 */
export interface SourceSettings {
  folderRoots: string[];
  graceMs: number;
  s3: S3SourceOpener | null;
  checkS3Endpoint: S3EndpointCheck | null;
  lockMs: number;
  maxFileBytes: number;
}

export const DEFAULT_SOURCE_GRACE_MS = 7 * 24 * 3600 * 1000;
export const DEFAULT_SOURCE_LOCK_MS = 60_000;
/** Largest file a source run ingests unless told (the server passes its DOSSIER_MAX_UPLOAD_BYTES). */
export const DEFAULT_SOURCE_MAX_FILE_BYTES = 1024 * 1024 * 1024;
/** Entries of a run read and uploaded at once. */
const ENTRIES_AT_ONCE = 8;

type Counters = Pick<SourceRunRecord, 'added' | 'updated' | 'deleted' | 'unchanged' | 'failed' | 'details'>;

async function fullManifest(store: SourceDocumentStore, collectionId: string): Promise<Map<string, ManifestEntry>> {
  const out = new Map<string, ManifestEntry>();
  for (let after: string | null = null; ; ) {
    const page = await store.listSourceManifest(collectionId, after, 5000);
    for (const e of page) out.set(e.path, e);
    if (page.length < 5000) return out;
    after = page[page.length - 1]!.path;
  }
}

/** Remove for good the documents whose soft deletion is older than the grace period. */
export async function purgeExpired(ctx: DossierContext, c: Collection, graceMs: number): Promise<void> {
  const before = new Date(Date.now() - graceMs).toISOString();
  for (const doc of await ctx.store.listSoftDeletedDocuments(before, 1000)) {
    if (doc.collectionId !== c.id) continue;
    await forgetDuplicate(ctx, c, doc);
    await ctx.index.deleteDocument(c.id, doc.id);
    await ctx.blobs.deletePrefix(`${collectionPrefix(c)}${doc.id}/`);
    await ctx.store.deleteDocument(doc.id);
  }
}

/** The source opened for a run: a folder on the server's disk, or an S3 prefix with its credentials unsealed. */
export function openSource(ctx: ContextPart<'secrets'>, settings: SourceSettings, source: SourceRecord): SourceReader & { close(): void } {
  if (source.kind === 'folder') return { ...folderReader(source.location), close: () => {} };
  if (!settings.s3) throw new DossierError('not_configured', 'S3 sources are not available on this server');
  return settings.s3(s3ConfigOf(ctx.secrets, source));
}

/**
 * The document an entry's bytes make: a small file through the direct upload path (read whole, one write); a file over
 * the 25 MB of a direct upload streamed into the store (issue 43), up to the server's upload limit.
 */
function ingestEntry(
  uploads: UploadServiceWithInternals,
  c: Collection,
  reader: SourceReader,
  entry: SourceEntry,
  maxFileBytes: number,
): Promise<DocumentRecord | DocumentView> {
  const filename = entry.path.split('/').pop() ?? entry.path;
  if (entry.size > DIRECT_UPLOAD_MAX_BYTES) {
    return uploads.ingestStreamed(
      c,
      { filename, sourcePath: entry.path, sourceStamp: entry.stamp, sizeBytes: entry.size, body: reader.stream(entry.path) },
      maxFileBytes,
    );
  }
  return reader
    .read(entry.path)
    .then((bytes) => uploads.upload({ projectId: c.projectId, env: c.env }, c.id, { filename, bytes, sourcePath: entry.path, sourceStamp: entry.stamp }));
}

/** Take one entry: unchanged by its stamp, else its bytes go through the upload path (same hash: only the stamp is noted). */
async function takeEntry(
  uploads: UploadServiceWithInternals,
  c: Collection,
  reader: SourceReader,
  entry: SourceEntry,
  known: ManifestEntry | undefined,
  n: Counters,
  maxFileBytes: number,
): Promise<void> {
  if (known && known.stamp === entry.stamp && known.status !== 'error') {
    n.unchanged++;
    return;
  }
  const doc = await ingestEntry(uploads, c, reader, entry, maxFileBytes);
  if (!known) n.added++;
  else if ((doc.version ?? 1) > known.version) n.updated++;
  else n.unchanged++;
}

/** Soft-delete the documents whose files are gone, unless that is more than the source's share (then the run fails). */
async function softDeleteMissing(store: DocumentStore, source: SourceRecord, gone: ManifestEntry[], total: number, force: boolean, n: Counters): Promise<void> {
  if (gone.length > 0 && !force && gone.length > source.maxDeleteShare * total) {
    throw new Error(
      `refusing to delete ${gone.length} of the collection's ${total} synced documents (more than ${Math.round(source.maxDeleteShare * 100)} %); is the source complete? Run with force to delete them`,
    );
  }
  const at = nowIso();
  for (const e of gone) {
    await store.updateDocument(e.documentId, { deletedAt: at });
    n.deleted++;
    n.details.deletedPaths.push(e.path);
  }
}

/** Compare the source with the collection's manifest and apply the difference, counting what happened. */
async function syncEntries(
  ctx: ContextPart<never, SourceDocumentStore & DocumentStore>,
  uploads: UploadServiceWithInternals,
  reader: SourceReader,
  source: SourceRecord,
  c: Collection,
  run: { force: boolean; maxFileBytes: number },
  n: Counters,
): Promise<void> {
  const { force, maxFileBytes } = run;
  const entries = await reader.list();
  const manifest = await fullManifest(ctx.store, c.id);
  const seen = new Set<string>(entries.map((entry) => entry.path));
  // A few entries at once: each changed one waits on its read (an S3 GET) and its upload, not on this process's CPU.
  const slot = pLimit(ENTRIES_AT_ONCE);
  await Promise.all(
    entries.map((entry) =>
      slot(async () => {
        try {
          await takeEntry(uploads, c, reader, entry, manifest.get(entry.path), n, maxFileBytes);
        } catch (err) {
          n.failed++;
          n.details.failures.push({ path: entry.path, error: err instanceof Error ? err.message : String(err) });
        }
      }),
    ),
  );
  const gone = [...manifest.values()].filter((e) => !seen.has(e.path));
  await softDeleteMissing(ctx.store, source, gone, manifest.size, force, n);
}

/** A run row before the sync starts (counters at zero). */
export function newRun(source: Pick<SourceRecord, 'id' | 'collectionId'>, trigger: SourceRunRecord['trigger']): SourceRunRecord {
  return {
    id: newId(),
    sourceId: source.id,
    collectionId: source.collectionId,
    status: 'running',
    trigger,
    added: 0,
    updated: 0,
    deleted: 0,
    unchanged: 0,
    failed: 0,
    details: { deletedPaths: [], failures: [], purgeAfter: null },
    error: null,
    startedAt: nowIso(),
    finishedAt: null,
  };
}

/**
 * Run a source's sync: into the run row made when it was asked for (`runId`), else a new scheduled one; the counters
 * are saved when it ends, with `source.run.completed`.
 */
export async function runSource(
  ctx: DossierContext,
  uploads: UploadServiceWithInternals,
  settings: SourceSettings,
  source: SourceRecord,
  runId: string | null,
  force = false,
): Promise<SourceRunRecord> {
  const c = await ctx.store.getCollection(source.collectionId);
  const run = runId === null ? newRun(source, 'schedule') : newRun(source, 'manual');
  if (runId === null) await ctx.store.insertSourceRun(run);
  else run.id = runId;
  run.details.purgeAfter = new Date(Date.now() + settings.graceMs).toISOString();
  let error: string | null = null;
  try {
    if (!c || c.deletedAt) throw new Error('The collection was deleted');
    await purgeExpired(ctx, c, settings.graceMs);
    const reader = openSource(ctx, settings, source);
    try {
      await syncEntries(ctx, uploads, reader, source, c, { force, maxFileBytes: settings.maxFileBytes }, run);
    } finally {
      reader.close();
    }
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  }
  const { added, updated, deleted, unchanged, failed, details } = run;
  const done = await ctx.store.updateSourceRun(run.id, {
    added,
    updated,
    deleted,
    unchanged,
    failed,
    details,
    status: error ? 'failed' : 'completed',
    error,
    finishedAt: nowIso(),
  });
  if (c) await recordCompletion(ctx, c, done);
  return done;
}

async function recordCompletion(ctx: ContextPart<'eventsRecorded', WebhookStore>, c: Collection, run: SourceRunRecord): Promise<void> {
  const { added, updated, deleted, unchanged, failed } = run;
  const data = {
    runId: run.id,
    sourceId: run.sourceId,
    collectionId: c.id,
    projectId: c.projectId,
    status: run.status as 'completed' | 'failed',
    added,
    updated,
    deleted,
    unchanged,
    failed,
    error: run.error,
  };
  await ctx.store.recordEvents([serviceEvent('source.run.completed', { projectId: c.projectId, env: c.env }, data)]);
  ctx.eventsRecorded();
}
