import { type MetadataStore, STORE_PART_METHODS } from '@dossier/core';
import * as agents from './agent-queries.ts';
import * as sources from './source-queries.ts';
import * as agentRuns from './agent-run-queries.ts';
import * as claims from './claim-queries.ts';
import * as collections from './collection-queries.ts';
import type { StoreContext } from './dialect.ts';
import * as documents from './document-queries.ts';
import * as duplicates from './duplicate-queries.ts';
import * as enrich from './enrich-queries.ts';
import * as evaluations from './evaluation-queries.ts';
import * as images from './image-queries.ts';
import * as idempotency from './idempotency-queries.ts';
import * as keys from './key-queries.ts';
import * as oauth from './oauth-queries.ts';
import * as people from './people-queries.ts';
import * as tenancyAdmin from './tenancy-admin-queries.ts';
import * as providerKeys from './provider-key-queries.ts';
import * as research from './research-queries.ts';
import * as sections from './section-queries.ts';
import * as tenancy from './tenancy-queries.ts';
import * as webhooks from './webhook-queries.ts';

/** How a dialect applies its migrations and releases its connections. */
export interface StoreLifecycle {
  migrate(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The query modules: each exports functions `(ctx, ...args)` named after the MetadataStore methods they implement, so
 * the store is these functions bound to its context (no hand-written delegation per method).
 */
const QUERY_MODULES = [
  tenancy, tenancyAdmin, keys, people, idempotency, oauth, collections, documents, sections, research, providerKeys, images, enrich, claims,
  duplicates, agents, agentRuns, webhooks, sources, evaluations,
] as const;

type Intersection<U> = (U extends unknown ? (all: U) => void : never) extends (all: infer I) => void ? I : never;
/** A module's functions without their first (context) argument; anything else is `unknown`, so the store's type check fails on it. */
type Bound<M> = { [K in keyof M]: M[K] extends (ctx: StoreContext, ...args: infer A) => infer R ? (...args: A) => R : unknown };
type BoundQueries = Bound<Intersection<(typeof QUERY_MODULES)[number]>>;

type QueryFunction = (ctx: StoreContext, ...args: unknown[]) => unknown;

/** Every port method (core's STORE_PART_METHODS) that a query module exports, bound to `ctx`. */
function boundQueries(ctx: StoreContext): BoundQueries {
  const bound: Record<string, unknown> = {};
  for (const method of Object.values(STORE_PART_METHODS).flat()) {
    const module = QUERY_MODULES.find((queries) => method in queries) as Record<string, QueryFunction> | undefined;
    const query = module?.[method];
    if (query) bound[method] = (...args: unknown[]) => query(ctx, ...args);
  }
  return bound as BoundQueries;
}

/** A MetadataStore over any Kysely database whose dialect supplies the few JSON and encoding bits. */
export function createKyselyMetadataStore(ctx: StoreContext, lifecycle: StoreLifecycle): MetadataStore {
  return {
    ...boundQueries(ctx),
    migrate: () => lifecycle.migrate(),
    close: () => lifecycle.close(),
    sizeBytes: () => ctx.dialect.sizeBytes(ctx.db),
    tagCounts: (collectionId) => ctx.dialect.tagCounts(ctx.db, collectionId),
    // Writes that record their webhook events in the same transaction (the outbox).
    insertResearchSession: (session, events = []) => webhooks.writeWithEvents(ctx, events, (inTx) => research.insertResearchSession(inTx, session)),
    updateContradictionRun: (id, patch, events = []) => webhooks.writeWithEvents(ctx, events, (inTx) => claims.updateContradictionRun(inTx, id, patch)),
    updateDuplicateRun: (id, patch, events = []) => webhooks.writeWithEvents(ctx, events, (inTx) => duplicates.updateDuplicateRun(inTx, id, patch)),
    finishAgentRun: (run, steps, events = []) => agentRuns.finishAgentRun(ctx, run, steps, events),
  };
}
