import { type Access, requireCollection } from '../access.ts';
import type { ProjectPath } from '../agents/service.ts';
import { normalizeSourcePath } from '../documents/source-path.ts';
import { requireProjectRole } from '../auth/roles.ts';
import type { SessionClaims } from '../auth/jwt.ts';
import type { ContextPart, DossierContext } from '../context.ts';
import { DossierError, notFound } from '../domain/errors.ts';
import type { Project } from '../domain/types.ts';
import { uploadService } from '../documents/uploads.ts';
import type { Job } from '../ports/job-queue.ts';
import { parseInput } from '../schemas.ts';
import { isUuid, newId, nowIso } from '../util/ids.ts';
import { allowedFolder } from './folder.ts';
import { withSourceLock } from './lock.ts';
import { s3SourceFields, sealedCredentials } from './s3.ts';
import { newRun, purgeExpired, runSource, type SourceSettings } from './run.ts';
import { createSourceSchema, deleteByPathSchema, runSourceSchema, updateSourceSchema } from './schemas.ts';
import type { SourceRecord, SourceRunRecord } from './types.ts';
import type { SourceService } from '../api/sources.ts';
import type { z } from 'zod';
import type * as responses from '../responses.ts';

export const SOURCE_SYNC_JOB = 'source.sync';
const DEFAULT_MAX_DELETE_SHARE = 0.2;
const RUNS_LISTED = 50;

/** A source as the API shows it (credentials never leave the store). */
export type SourceView = z.output<typeof responses.source>;
const sourceView = ({ credentialsEncrypted: _c, ...s }: SourceRecord): SourceView => s;

/** Queue a run: a manual one now (its run row made already), or the next scheduled one after the interval. */
async function enqueueRun(
  ctx: ContextPart<'queue' | 'wakeWorkers'>,
  source: SourceRecord,
  run: { runId?: string; force?: boolean; delayMs?: number },
): Promise<void> {
  const scheduled = run.runId === undefined;
  await ctx.queue.enqueue({
    type: SOURCE_SYNC_JOB,
    payload: { sourceId: source.id, ...(run.runId ? { runId: run.runId } : {}), force: Boolean(run.force) },
    dedupeKey: scheduled ? `${SOURCE_SYNC_JOB}:schedule:${source.id}` : `${SOURCE_SYNC_JOB}:${run.runId}`,
    runAt: new Date(Date.now() + (run.delayMs ?? 0)),
  });
  ctx.wakeWorkers();
}

/** The job: run the source (a paused or removed one is skipped), then queue its next scheduled run. */
export function sourceHandlers(ctx: DossierContext, settings: SourceSettings): Record<string, (job: Job) => Promise<void>> {
  const uploads = uploadService(ctx);
  return {
    [SOURCE_SYNC_JOB]: async (job) => {
      const source = await ctx.store.getSource(String(job.payload.sourceId));
      if (!source) return;
      const runId = typeof job.payload.runId === 'string' ? job.payload.runId : undefined;
      if (runId === undefined && source.paused) return;
      // Runs of one source go one after another, on this node or any other (the lock is in the metadata store).
      await withSourceLock(ctx, source.id, settings.lockMs, () => runSource(ctx, uploads, settings, source, runId ?? null, Boolean(job.payload.force)));
      if (runId === undefined && source.intervalMinutes !== null) {
        const next = new Date(Date.now() + source.intervalMinutes * 60_000);
        await ctx.store.updateSource(source.id, { nextRunAt: next.toISOString() });
        await enqueueRun(ctx, source, { delayMs: source.intervalMinutes * 60_000 });
      }
    },
  };
}

/** Server-side sources of a project's collections (JWT: admins write, members read). */
export function sourceService(ctx: DossierContext, settings: SourceSettings): SourceService {
  async function collectionIdsOf(project: Project): Promise<string[]> {
    const [live, test] = await Promise.all([ctx.store.listCollections(project.id, 'live'), ctx.store.listCollections(project.id, 'test')]);
    return [...live, ...test].map((c) => c.id);
  }
  async function sourceOf(project: Project, sourceId: string): Promise<SourceRecord> {
    const source = isUuid(sourceId) ? await ctx.store.getSource(sourceId) : null;
    const c = source ? await ctx.store.getCollection(source.collectionId) : null;
    if (!source || !c || c.projectId !== project.id || c.deletedAt) throw notFound('Source');
    return source;
  }

  /** An S3 endpoint the server may reach (SSRF guard: no private or link-local address unless the operator allows them). */
  async function checkEndpoint(endpoint: string | undefined): Promise<void> {
    const refused = endpoint && settings.checkS3Endpoint ? await settings.checkS3Endpoint(endpoint) : null;
    if (refused) throw new DossierError('invalid_input', `endpoint: this server does not reach it (${refused})`);
  }

  /** Changed credentials of an S3 source, sealed again (both keys together; a folder source has none). */
  function newCredentials(source: SourceRecord, input: { accessKeyId?: string; secretAccessKey?: string }): Partial<SourceRecord> {
    const { accessKeyId, secretAccessKey } = input;
    if (accessKeyId === undefined && secretAccessKey === undefined) return {};
    if (source.kind !== 's3') throw new DossierError('invalid_input', 'accessKeyId, secretAccessKey: only an S3 source has credentials');
    if (accessKeyId === undefined || secretAccessKey === undefined)
      throw new DossierError('invalid_input', 'accessKeyId and secretAccessKey are changed together');
    return sealedCredentials(ctx.secrets, source.settings, { accessKeyId, secretAccessKey });
  }

  return {
    async create(claims: SessionClaims, path: ProjectPath, raw: unknown): Promise<SourceView> {
      const project = await requireProjectRole(ctx, claims, path, 'admin', 'Managing sources');
      const input = parseInput(createSourceSchema, raw);
      const c = await ctx.store.getCollection(input.collectionId);
      if (!c || c.projectId !== project.id || c.deletedAt) throw notFound('Collection');
      const now = nowIso();
      if (input.kind === 's3' && !settings.s3) throw new DossierError('invalid_input', 'S3 sources are not available on this server');
      if (input.kind === 's3') await checkEndpoint(input.endpoint);
      const where =
        input.kind === 'folder'
          ? { location: allowedFolder(input.path, settings.folderRoots), settings: {}, credentialsEncrypted: null }
          : s3SourceFields(ctx.secrets, input);
      const source: SourceRecord = {
        id: newId(),
        collectionId: c.id,
        kind: input.kind,
        ...where,
        intervalMinutes: input.intervalMinutes ?? null,
        maxDeleteShare: (input.maxDeletePercent ?? DEFAULT_MAX_DELETE_SHARE * 100) / 100,
        paused: false,
        nextRunAt: input.intervalMinutes ? now : null,
        createdAt: now,
        updatedAt: now,
      };
      await ctx.store.insertSource(source);
      if (source.intervalMinutes !== null) await enqueueRun(ctx, source, {});
      return sourceView(source);
    },
    async list(claims: SessionClaims, path: ProjectPath): Promise<SourceView[]> {
      const project = await requireProjectRole(ctx, claims, path, 'member', 'Reading sources');
      return (await ctx.store.listSources(await collectionIdsOf(project))).map(sourceView);
    },
    async get(claims: SessionClaims, path: ProjectPath, sourceId: string): Promise<SourceView> {
      const project = await requireProjectRole(ctx, claims, path, 'member', 'Reading sources');
      return sourceView(await sourceOf(project, sourceId));
    },
    async update(claims: SessionClaims, path: ProjectPath, sourceId: string, raw: unknown): Promise<SourceView> {
      const project = await requireProjectRole(ctx, claims, path, 'admin', 'Managing sources');
      const input = parseInput(updateSourceSchema, raw);
      const before = await sourceOf(project, sourceId);
      const updated = await ctx.store.updateSource(before.id, {
        ...newCredentials(before, input),
        ...(input.paused !== undefined ? { paused: input.paused } : {}),
        ...(input.intervalMinutes !== undefined ? { intervalMinutes: input.intervalMinutes } : {}),
        ...(input.maxDeletePercent !== undefined ? { maxDeleteShare: input.maxDeletePercent / 100 } : {}),
        updatedAt: nowIso(),
      });
      const resumed = (before.paused && !updated.paused) || (before.intervalMinutes === null && updated.intervalMinutes !== null);
      if (resumed && !updated.paused && updated.intervalMinutes !== null) await enqueueRun(ctx, updated, {});
      return sourceView(updated);
    },
    async remove(claims: SessionClaims, path: ProjectPath, sourceId: string): Promise<void> {
      const project = await requireProjectRole(ctx, claims, path, 'admin', 'Managing sources');
      await ctx.store.deleteSource((await sourceOf(project, sourceId)).id);
    },
    /** Run now (202): the run is recorded as running at once and its counters fill in as the job goes. */
    async runNow(claims: SessionClaims, path: ProjectPath, sourceId: string, raw: unknown): Promise<SourceRunRecord> {
      const project = await requireProjectRole(ctx, claims, path, 'admin', 'Running sources');
      const { force } = parseInput(runSourceSchema, raw ?? {});
      const source = await sourceOf(project, sourceId);
      const run = newRun(source, 'manual');
      await ctx.store.insertSourceRun(run);
      await enqueueRun(ctx, source, { runId: run.id, force });
      return run;
    },
    /**
     * A sync's deletions (`dossier sync --delete`): the live documents with these source paths are deleted softly
     * (hidden at once, purged after the grace period, like a source run's); paths with no document are skipped.
     */
    async softDeleteByPath(access: Access, collectionId: string, raw: unknown) {
      const c = await requireCollection(ctx.store, access, collectionId, 'write');
      const { paths } = parseInput(deleteByPathSchema, raw);
      await purgeExpired(ctx, c, settings.graceMs);
      const at = nowIso();
      const deleted: { path: string; documentId: string }[] = [];
      for (const p of new Set(paths.map(normalizeSourcePath))) {
        const doc = await ctx.store.findDocumentBySourcePath(c.id, p);
        if (!doc) continue;
        await ctx.store.updateDocument(doc.id, { deletedAt: at });
        deleted.push({ path: p, documentId: doc.id });
      }
      return { deleted, purgeAfter: new Date(Date.parse(at) + settings.graceMs).toISOString() };
    },
    async runs(claims: SessionClaims, path: ProjectPath, sourceId: string): Promise<SourceRunRecord[]> {
      const project = await requireProjectRole(ctx, claims, path, 'member', 'Reading sources');
      return ctx.store.listSourceRuns((await sourceOf(project, sourceId)).id, RUNS_LISTED);
    },
  };
}

export type { SourceService };
