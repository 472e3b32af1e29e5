import type { CollectionStore } from '../ports/collection-store.ts';
import type { ClaimStore } from '../ports/claim-store.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import { type Access, requireCollection, requireDocument } from '../access.ts';
import type { ContextPart } from '../context.ts';
import type { Collection } from '../domain/types.ts';
import type { ClaimMapItem, ClaimRecord, ContradictionRecord, ContradictionRunRecord, ContradictionSeverity, ContradictionStatus } from '../domain/claims.ts';
import { DossierError, invalid, notFound } from '../domain/errors.ts';
import { enqueueEnrich } from '../enrich/jobs.ts';
import { noProviderError } from '../models/not-configured.ts';
import { isUuid, newId } from '../util/ids.ts';
import { CONTRADICTION_JOB } from './detection.ts';
import { claimsVersion, computeClaimMap, type MapProgress } from './map.ts';
import type { ClaimService } from '../api/claims.ts';
import type { z } from 'zod';
import type * as responses from '../responses.ts';

/** Longest collection instructions (spec: Limits). */
export const MAX_INSTRUCTIONS_CHARS = 4_000;

/** A claim as the API shows it (spec: Claim). */
export type ClaimView = z.output<typeof responses.claim>;
/** A contradiction as the API shows it (spec: Contradiction). */
export type ContradictionView = z.output<typeof responses.contradiction>;
/** A run as the API shows it (spec: ContradictionRun). */
export type ContradictionRunView = z.output<typeof responses.contradictionRun>;

const claimView = ({ collectionId: _c, createdAt: _t, ...view }: ClaimRecord): ClaimView => view;
const contradictionView = ({ collectionId: _c, fingerprint: _f, ...view }: ContradictionRecord): ContradictionView => view;
const runView = ({ collectionId: _c, ...view }: ContradictionRunRecord): ContradictionRunView => view;

/** Filters of the contradiction list (spec: GET /v1/collections/:id/contradictions). */
export interface ContradictionListQuery {
  status: ContradictionStatus;
  severity?: ContradictionSeverity;
  documentId?: string;
  limit: number;
  /** Matching contradictions to skip (default 0). */
  offset?: number;
}

/** Every contradiction matching a status and severity (for the per-file counts). */
const ALL = 100_000;

/** Claims, the claim map and contradiction review of collections the caller may use. */
export function claimService(ctx: ContextPart<'embedders' | 'models' | 'queue' | 'wakeWorkers', CollectionStore & ClaimStore & DocumentStore>): ClaimService {
  async function contradictionOf(access: Access, collectionId: string, contradictionId: string) {
    const collection = await requireCollection(ctx.store, access, collectionId, 'write');
    const found = isUuid(contradictionId) ? await ctx.store.getContradiction(contradictionId) : null;
    if (!found || found.collectionId !== collection.id) throw notFound('Contradiction');
    return { collection, contradiction: found };
  }

  /** Build (or read the cached) map of a collection the caller owns. */
  async function buildClaimMap(collection: Collection, progress: MapProgress): Promise<{ total: number; claims: ClaimMapItem[] }> {
    const documents = new Map((await ctx.store.findDocuments(collection.id, {})).filter((doc) => doc.status === 'ready').map((doc) => [doc.id, doc.filename]));
    const claims = (await ctx.store.listCollectionClaims(collection.id)).filter((claim) => documents.has(claim.documentId));
    const version = claimsVersion(claims);
    const cached = await ctx.store.getClaimMap(collection.id, version);
    progress(cached ? 100 : 5);
    if (cached) return { total: cached.length, claims: cached };
    const items = await computeClaimMap(ctx, collection, claims, documents, progress);
    await ctx.store.putClaimMap(collection.id, version, items);
    progress(100);
    return { total: items.length, claims: items };
  }

  return {
    /** Claims of a document with importance ≥ minImportance, by position (spec: GET /v1/documents/:id/claims). */
    async documentClaims(access: Access, documentId: string, minImportance: number): Promise<{ documentId: string; claims: ClaimView[] }> {
      const { doc } = await requireDocument(ctx, access, documentId, 'write');
      return { documentId: doc.id, claims: (await ctx.store.listDocumentClaims(doc.id, minImportance)).map(claimView) };
    },

    /**
     * The 2-D claim map of a collection's ready documents, from the cache while the claims are unchanged. The
     * caller's ownership is checked first (so a refusal is an HTTP status, before any stream opens); the returned
     * function does the work.
     */
    async openClaimMap(access: Access, collectionId: string): Promise<(progress: MapProgress) => Promise<{ total: number; claims: ClaimMapItem[] }>> {
      const collection = await requireCollection(ctx.store, access, collectionId, 'write');
      return (progress) => buildClaimMap(collection, progress);
    },
    /** The claim map in one call (library use). */
    async claimMap(access: Access, collectionId: string, progress: MapProgress): Promise<{ total: number; claims: ClaimMapItem[] }> {
      return buildClaimMap(await requireCollection(ctx.store, access, collectionId, 'write'), progress);
    },

    /** Delete every claim and the cached map, then re-enqueue extraction of every ready document (204). */
    async recomputeClaims(access: Access, collectionId: string): Promise<void> {
      const collection = await requireCollection(ctx.store, access, collectionId, 'write');
      await ctx.store.deleteCollectionClaims(collection.id);
      if (!(await ctx.models.hasProvider({ projectId: collection.projectId, env: collection.env }))) return;
      const ready = (await ctx.store.findDocuments(collection.id, {})).filter((doc) => doc.status === 'ready');
      for (const doc of ready) await enqueueEnrich(ctx, 'claims', doc.id, false);
      if (ready.length > 0) ctx.wakeWorkers();
    },

    /** Start a contradiction run, or return the one still in flight (spec: POST …/contradictions/detect). */
    async detectContradictions(access: Access, collectionId: string): Promise<{ runId: string; status: 'enqueued' | 'running'; enqueuedAt: string }> {
      const collection = await requireCollection(ctx.store, access, collectionId, 'write');
      const latest = await ctx.store.latestContradictionRun(collection.id);
      if (latest && (latest.status === 'enqueued' || latest.status === 'running')) {
        return { runId: latest.id, status: latest.status, enqueuedAt: latest.createdAt };
      }
      if (!(await ctx.models.hasProvider({ projectId: collection.projectId, env: collection.env }))) throw noProviderError(collection.projectId);
      const run: ContradictionRunRecord = {
        id: newId(),
        collectionId: collection.id,
        status: 'enqueued',
        claimsProcessed: null,
        clustersAnalyzed: null,
        contradictionsFound: null,
        model: null,
        startedAt: null,
        completedAt: null,
        error: null,
        createdAt: new Date().toISOString(),
      };
      await ctx.store.insertContradictionRun(run);
      await ctx.queue.enqueue({ type: CONTRADICTION_JOB, payload: { runId: run.id, collectionId: collection.id }, maxAttempts: 3 });
      ctx.wakeWorkers();
      return { runId: run.id, status: 'enqueued', enqueuedAt: run.createdAt };
    },

    /** The newest contradiction run (404 before the first). */
    async latestContradictionRun(access: Access, collectionId: string): Promise<ContradictionRunView> {
      const collection = await requireCollection(ctx.store, access, collectionId, 'write');
      const run = await ctx.store.latestContradictionRun(collection.id);
      if (!run) throw notFound('Contradiction run');
      return runView(run);
    },

    /** Contradictions of a collection, newest first (spec: GET …/contradictions). */
    async listContradictions(access: Access, collectionId: string, query: ContradictionListQuery): Promise<{ total: number; items: ContradictionView[] }> {
      const collection = await requireCollection(ctx.store, access, collectionId, 'write');
      const { limit, offset, ...filter } = query;
      const page = await ctx.store.listContradictions(collection.id, filter, limit, offset);
      return { total: page.total, items: page.items.map(contradictionView) };
    },

    /** Documents by number of contradictions touching them, count desc then filename asc (spec: …/files). */
    async contradictionFiles(access: Access, collectionId: string, query: Omit<ContradictionListQuery, 'limit' | 'offset' | 'documentId'>) {
      const collection = await requireCollection(ctx.store, access, collectionId, 'write');
      const { items } = await ctx.store.listContradictions(collection.id, query, ALL);
      const files = new Map<string, { documentId: string; filename: string; contradictionCount: number }>();
      for (const contradiction of items) {
        for (const ref of new Map(contradiction.claims.map((claim) => [claim.documentId, claim])).values()) {
          const entry = files.get(ref.documentId) ?? { documentId: ref.documentId, filename: ref.documentName, contradictionCount: 0 };
          entry.contradictionCount++;
          files.set(ref.documentId, entry);
        }
      }
      const sorted = [...files.values()].sort((a, b) => b.contradictionCount - a.contradictionCount || a.filename.localeCompare(b.filename));
      return { files: sorted };
    },

    /** Dismiss a contradiction (spec: update contradiction with status `dismissed`). */
    async dismissContradiction(access: Access, collectionId: string, contradictionId: string): Promise<ContradictionView> {
      const { contradiction } = await contradictionOf(access, collectionId, contradictionId);
      await ctx.store.setContradictionStatus(contradiction.id, 'dismissed');
      return contradictionView({ ...contradiction, status: 'dismissed' });
    },

    /**
     * Append the instruction (the given one, else the suggested one) to the collection's instructions and mark the
     * contradiction applied. A result over 4,000 characters is refused, never cut.
     */
    async applyInstruction(access: Access, collectionId: string, contradictionId: string, instruction?: string): Promise<void> {
      const { collection, contradiction } = await contradictionOf(access, collectionId, contradictionId);
      const text = (instruction ?? contradiction.suggestedInstruction ?? '').trim();
      if (!text) throw invalid('This contradiction has no suggested instruction: send one in `instruction`');
      const next = collection.instructions ? `${collection.instructions}\n\n${text}` : text;
      if (next.length > MAX_INSTRUCTIONS_CHARS) {
        throw new DossierError(
          'invalid_input',
          `The collection instructions would be ${next.length} characters; at most ${MAX_INSTRUCTIONS_CHARS} are allowed`,
        );
      }
      await ctx.store.updateCollection(collection.id, { instructions: next });
      await ctx.store.setContradictionStatus(contradiction.id, 'applied');
    },
  };
}

export type { ClaimService };
