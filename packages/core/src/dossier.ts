import type { AccountStore } from './ports/account-store.ts';
import pLimit from 'p-limit';
import { randomBytes } from 'node:crypto';
import { type Access, requireCollection } from './access.ts';
import { agentRunService } from './agents/runs.ts';
import { keyService } from './auth/key-service.ts';
import { describeCollection } from './collections/describe.ts';
import { idempotencyService } from './idempotency/service.ts';
import { orgService } from './auth/org-service.ts';
import { agentService } from './agents/service.ts';
import { authService } from './auth/service.ts';
import { oauthService } from './oauth/service.ts';
import { type PeopleSettings, peopleService } from './people/index.ts';
import type { OAuthSettings } from './oauth/settings.ts';
import { CONTRADICTION_JOB, runContradictionJob } from './claims/detection.ts';
import { claimService } from './claims/service.ts';
import { duplicateHandlers, duplicateService } from './duplicates/service.ts';
import { collectionService } from './collections/service.ts';
import { guardedCollectionUpdate } from './evaluation/guard.ts';
import { evaluationHandlers, failAbandonedEvaluation } from './evaluation/jobs.ts';
import { evaluationService } from './evaluation/service.ts';
import {
  CONVERSIONS_AT_ONCE,
  DEFAULT_PIPELINE_CONCURRENCY,
  DEFAULT_UPLOAD_CONCURRENCY,
  type DossierContext,
  type DossierDeps,
  documentTopic,
  type PageRenderer,
  SMALL_CONVERSIONS_AT_ONCE,
  SMALL_ORIGINAL_BYTES,
  silentLogger,
} from './context.ts';
import type { DocumentEvent } from './domain/types.ts';
import { type DocumentStatusMessage, documentEventIn } from './events/catalogue.ts';
import { DossierError } from './domain/errors.ts';
import { pageImageService } from './documents/page-images.ts';
import type { Dossier } from './dossier-api.ts';
import { type ScopedDossier, scopedDossier } from './scoped.ts';
import { imageService } from './documents/images.ts';
import { enrichHandlers } from './enrich/jobs.ts';
import { recomputeService } from './enrich/recompute.ts';
import { documentService } from './documents/manage.ts';
import { uploadService } from './documents/uploads.ts';
import { chunkDocument } from './ingest/chunk-document.ts';
import { ConverterRegistry, defaultConverters } from './ingest/converters/registry.ts';
import { failAbandonedIngest, ingestHandlers } from './ingest/pipeline.ts';
import { DEFAULT_SOURCE_GRACE_MS, DEFAULT_SOURCE_LOCK_MS, DEFAULT_SOURCE_MAX_FILE_BYTES } from './sources/run.ts';
import { sourceHandlers, sourceService } from './sources/service.ts';
import { prepareDocument } from './ingest/prepare.ts';
import { createJobRunner } from './jobs/runner.ts';
import { unconfiguredResolver } from './models/not-configured.ts';
import { providerKeyService } from './providers/keys.ts';
import { filenameSearchService } from './search/filename-search.ts';
import { DEFAULT_RETRIEVAL, type RetrievalSettings, searchService } from './search/query.ts';
import { DEFAULT_RESEARCH_SETTINGS, type ResearchSettings, researchService } from './research/service.ts';
import { memoryConcurrencyGate } from './limits/memory-gate.ts';
import { acquireRunSlot, releaseRunSlot } from './limits/run-slots.ts';
import { usageDaily } from './usage/daily.ts';
import { withQueryMeter } from './usage/meter.ts';
import { unlimitedPlans } from './usage/plans.ts';
import { type Sandbox, usageMeters } from './usage/quotas.ts';
import { createWebhookDispatcher, DEFAULT_WEBHOOK_SETTINGS, runDeliveryJob, unconfiguredSender, WEBHOOK_JOB } from './webhooks/delivery.ts';
import { webhookService } from './webhooks/service.ts';

/** The page renderer of a Dossier built without one (core alone cannot draw a PDF). */
const noPageRenderer: PageRenderer = async () => {
  throw new DossierError('unavailable', 'Page images are not available on this server (no PDF renderer is configured)');
};

/** Fill in the optional dependencies with core's defaults. */
function contextOf(deps: DossierDeps, wake: () => void, eventsRecorded: () => void): DossierContext {
  const registry = new ConverterRegistry(defaultConverters());
  return {
    store: deps.store,
    index: deps.index,
    blobs: deps.blobs,
    queue: deps.queue,
    events: deps.events,
    embedders: deps.embedders,
    secrets: deps.secrets,
    defaultEmbeddingModel: deps.defaultEmbeddingModel,
    reranker: deps.reranker ?? null,
    convert: deps.convert ?? ((input) => prepareDocument(registry, input)),
    chunk: deps.chunk ?? (async (input) => chunkDocument(input)),
    renderPage: deps.renderPage ?? noPageRenderer,
    log: deps.log ?? silentLogger,
    models: deps.models ?? unconfiguredResolver,
    plans: deps.plans ?? unlimitedPlans,
    gate: deps.gate ?? memoryConcurrencyGate(),
    wakeWorkers: wake,
    eventsRecorded,
    conversionSlot: conversionSlots(),
    uploadSlot: pLimit(deps.uploads?.concurrency === 0 ? Number.POSITIVE_INFINITY : (deps.uploads?.concurrency ?? DEFAULT_UPLOAD_CONCURRENCY)),
  };
}

/** The internal context of each Dossier, kept off its public face (see dossierContext). */
const contexts = new WeakMap<Dossier, DossierContext>();

/**
 * The adapters, secrets and settings a Dossier runs on. Not part of the public API: for tests, benchmarks and
 * core's own wiring (`@dossier/core/testing` re-exports it).
 */
export function dossierContext(dossier: Dossier): DossierContext {
  const ctx = contexts.get(dossier);
  if (!ctx) throw new Error('Not a Dossier made by createDossierCore');
  return ctx;
}

/** The access of the built-in local project (created on first use) that `Dossier.local()` binds. */
async function localAccess(store: AccountStore, auth: ReturnType<typeof authService>): Promise<NonNullable<Access>> {
  const email = 'library@localhost';
  const boot = await auth.bootstrap(email, randomBytes(24).toString('base64url'));
  if (boot) return { projectId: boot.projectId, env: 'live' };
  const account = await store.findAccountByEmail(email);
  const [org] = account ? await store.listOrgsForAccount(account.id) : [];
  const [project] = org ? await store.listProjects(org.id) : [];
  if (!project) throw new DossierError('internal', 'The local project is missing');
  return { projectId: project.id, env: 'live' };
}

/**
 * The whole domain over its ports: the object the server, the CLI's server mode and embedding apps use.
 * Call `start()` to run the pipeline workers in this process and `close()` to drain them and release adapters.
 */
export function createDossierCore(
  deps: DossierDeps,
  opts: { retrieval?: RetrievalSettings; research?: Partial<ResearchSettings>; oauth?: Partial<OAuthSettings>; people?: Partial<PeopleSettings> } = {},
): Dossier {
  let wake = () => {};
  let eventsRecorded = () => {};
  const ctx = contextOf(
    deps,
    () => wake(),
    () => eventsRecorded(),
  );
  const workers = deps.workers ?? {};
  const sourceSettings = {
    folderRoots: deps.sources?.folderRoots ?? [],
    graceMs: deps.sources?.graceMs ?? DEFAULT_SOURCE_GRACE_MS,
    s3: deps.sources?.s3 ?? null,
    checkS3Endpoint: deps.sources?.checkS3Endpoint ?? null,
    lockMs: deps.sources?.lockMs ?? DEFAULT_SOURCE_LOCK_MS,
    maxFileBytes: deps.sources?.maxFileBytes ?? DEFAULT_SOURCE_MAX_FILE_BYTES,
  };
  const runner =
    workers.concurrency === 0
      ? null
      : createJobRunner({
          queue: ctx.queue,
          handlers: {
            ...ingestHandlers(ctx),
            ...enrichHandlers(ctx),
            [CONTRADICTION_JOB]: (job, { signal }) => runContradictionJob(ctx, job, signal),
            ...duplicateHandlers(ctx),
            ...sourceHandlers(ctx, sourceSettings),
            ...evaluationHandlers(ctx, opts.retrieval ?? DEFAULT_RETRIEVAL),
          },
          concurrency: workers.concurrency ?? DEFAULT_PIPELINE_CONCURRENCY,
          leaseMs: workers.leaseMs ?? 30_000,
          pollMs: workers.pollMs ?? 500,
          onError: (err, job) => ctx.log.warn('job failed', { type: job.type, jobId: job.id, error: String(err) }),
          onQueueError: (err) => ctx.log.error('job queue error', { error: String(err) }),
          onGaveUp: async (job) => {
            await failAbandonedIngest(ctx, job);
            await failAbandonedEvaluation(ctx, job);
          },
        });
  wake = () => runner?.wake();
  const webhookSettings = { ...DEFAULT_WEBHOOK_SETTINGS, ...deps.webhooks?.settings };
  const sender = deps.webhooks?.sender ?? unconfiguredSender;
  // Deliveries run in their own runner so a slow receiver never holds up the ingestion pipeline.
  const webhookRunner =
    workers.concurrency === 0
      ? null
      : createJobRunner({
          queue: ctx.queue,
          handlers: { [WEBHOOK_JOB]: (job) => runDeliveryJob(ctx, sender, webhookSettings, job) },
          concurrency: webhookSettings.concurrency,
          leaseMs: workers.leaseMs ?? 30_000,
          pollMs: workers.pollMs ?? 500,
          onError: (err, job) => ctx.log.warn('webhook job failed', { jobId: job.id, error: String(err) }),
          onQueueError: (err) => ctx.log.error('job queue error', { error: String(err) }),
        });
  const dispatcher = createWebhookDispatcher(ctx, webhookSettings, () => webhookRunner?.wake());
  eventsRecorded = () => void dispatcher.kick();
  const uploads = uploadService(ctx);
  const auth = authService(ctx);
  const search = searchService(ctx, opts.retrieval ?? DEFAULT_RETRIEVAL);
  const { evaluate, setOf: _setOf, ...evaluations } = evaluationService(ctx, opts.retrieval ?? DEFAULT_RETRIEVAL);
  const collections = collectionService(ctx);
  const researchSettings = { ...DEFAULT_RESEARCH_SETTINGS, ...opts.research };
  const { failStaleRuns, ...agentRuns } = agentRunService(ctx, search, researchSettings);
  let local: Promise<ScopedDossier> | null = null;
  const dossier: Dossier = {
    get defaultEmbeddingModel() {
      return ctx.defaultEmbeddingModel;
    },
    auth,
    keys: keyService(ctx, auth),
    orgs: orgService(ctx, auth),
    /** The OAuth 2.1 authorization server of the MCP endpoint (issue 18). */
    oauth: oauthService(ctx, auth, opts.oauth),
    people: peopleService(ctx, auth, opts.people),
    idempotency: idempotencyService(ctx.store),
    agents: { ...agentService(ctx), ...agentRuns },
    sources: sourceService(ctx, sourceSettings),
    collections: {
      ...collections,
      /** Updates go through the collection's evaluation guard when it has one (issue 38). */
      update: guardedCollectionUpdate(ctx, opts.retrieval ?? DEFAULT_RETRIEVAL, collections.update, evaluate),
      ...recomputeService(ctx),
      /** Write the collection's description with the fast model from its file names and headings. */
      describe: (access: Access, id: string) => describeCollection(ctx, access, id),
    },
    documents: { ...documentService(ctx), ...uploads, ...imageService(ctx), ...pageImageService(ctx), search: filenameSearchService(ctx).search },
    search: withQueryMeter(ctx, search),
    evaluations,
    research: researchService(ctx, search, researchSettings),
    providerKeys: providerKeyService(ctx),
    claims: claimService(ctx),
    usage: {
      /** The caller's sandbox meters for the current month (spec: Usage meters). */
      meters: (sandbox: Sandbox) => usageMeters(ctx, sandbox),
      /** The sandbox's meters of a month day by day (query `month` YYYY-MM, default the current one). */
      daily: (sandbox: Sandbox, query?: unknown) => usageDaily(ctx, sandbox, query),
    },
    limits: {
      /** Take a slot of the project's org for an agent run (429 when the org's cap is reached). */
      acquireRunSlot: (projectId: string, leaseMs: number) => acquireRunSlot(ctx, projectId, leaseMs),
      releaseRunSlot: (lease: Awaited<ReturnType<typeof acquireRunSlot>>) => releaseRunSlot(ctx, lease),
    },
    duplicates: duplicateService(ctx),
    webhooks: webhookService(ctx, { allowHttpLoopback: deps.webhooks?.allowHttpLoopback ?? false, kick: dispatcher.kick, sender }),
    events: {
      /** Receive the collection's DocumentEvents until the returned function is called (live when this resolves). */
      async subscribe(access: Access, collectionId: string, handler: (e: DocumentEvent) => void): Promise<() => void> {
        const c = await requireCollection(ctx.store, access, collectionId, 'read');
        const unsubscribe = ctx.events.subscribe(documentTopic(c.id), (e) => handler(documentEventIn(c.env, e as DocumentStatusMessage)));
        // A stream that says it is connected must see every later event, whichever node publishes it.
        try {
          await ctx.events.settled?.();
        } catch (err) {
          unsubscribe();
          ctx.log.error('event subscription failed; the stream is refused', { collectionId: c.id, error: String(err) });
          throw new DossierError('unavailable', 'Live events are unavailable right now; try again shortly');
        }
        return unsubscribe;
      },
    },
    local: () => (local ??= localAccess(ctx.store, auth).then((access) => scopedDossier(dossier, access))),
    /** Start pipeline workers in this process. */
    start(): void {
      runner?.start();
      failStaleRuns().catch((err) => ctx.log.warn('stale agent runs not ended', { error: String(err) }));
      if (webhookRunner) {
        webhookRunner.start();
        dispatcher.start();
      }
    },
    /** Resolves when no pipeline job is runnable or running and the index maintenance they call for has run. */
    async idle(): Promise<void> {
      await runner?.idle();
      await dispatcher.kick();
      await webhookRunner?.idle();
      await deps.index.settle?.();
    },
    /** Drain in-flight jobs, then release every adapter. */
    async close(): Promise<void> {
      await dispatcher.stop();
      await Promise.all([runner?.stop(), webhookRunner?.stop()]);
      await Promise.allSettled([deps.embedders.close(), deps.index.close(), deps.events.close(), ctx.gate.close()]);
      await Promise.allSettled([deps.store.close(), deps.queue.close()]);
    },
  };
  contexts.set(dossier, ctx);
  return dossier;
}

/** @deprecated The public API is the `Dossier` interface; this alias remains for code written before it. */
export type DossierCore = Dossier;

/** The conversion slots of a process (see DossierContext.conversionSlot). */
function conversionSlots(): DossierContext['conversionSlot'] {
  const small = pLimit(SMALL_CONVERSIONS_AT_ONCE);
  const large = pLimit(CONVERSIONS_AT_ONCE);
  return (sizeBytes, convert) => (sizeBytes !== null && sizeBytes <= SMALL_ORIGINAL_BYTES ? small(convert) : large(convert));
}
