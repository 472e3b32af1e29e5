import type { Env, ResearchSessionRecord, UsageMeter } from '../domain/types.ts';
import type { ServiceEvent } from '../events/catalogue.ts';

/**
 * The research and usage part of the MetadataStore (kept in its own file so each port file stays small).
 * Scoping by project is the caller's policy, as for the rest of the store.
 */
export interface ResearchStore {
  /**
   * Insert a research session (its sources are stored as given: a frozen snapshot), recording `events` (its
   * `research.completed`) in the same transaction.
   */
  insertResearchSession(session: ResearchSessionRecord, events?: ServiceEvent[]): Promise<void>;
  /** The newest `limit` sessions of a collection, newest first (ties broken by id, descending). */
  listResearchSessions(collectionId: string, limit: number): Promise<ResearchSessionRecord[]>;
  /** A session by id, or null. */
  getResearchSession(id: string): Promise<ResearchSessionRecord | null>;
  /** Delete a session; deleting a missing one is a no-op. */
  deleteResearchSession(id: string): Promise<void>;
}

/** Append-only usage meters of a project sandbox (spec: Usage meters). */
export interface UsageStore {
  /** Record `amount` (may be fractional) on a meter at an ISO time. */
  addUsage(projectId: string, env: Env, meter: UsageMeter, amount: number, at: string): Promise<void>;
  /**
   * Add `amount` to a meter unless the total since `since` would then pass `cap` (null: no cap), in one
   * transaction, so concurrent spenders cannot pass the cap together; true when added.
   */
  spendIfRoom(projectId: string, env: Env, meter: UsageMeter, amount: number, cap: number | null, since: string, at: string): Promise<boolean>;
  /** Sum of each meter recorded at or after `since` (ISO time); meters with no usage are 0. */
  usageTotals(projectId: string, env: Env, since: string): Promise<Record<UsageMeter, number>>;
  /**
   * Each meter's sum per UTC day (`date` YYYY-MM-DD) of what was recorded in [since, until) (ISO times); days and
   * meters with nothing recorded are left out.
   */
  usageByDay(projectId: string, env: Env, since: string, until: string): Promise<{ date: string; meter: UsageMeter; amount: number }[]>;
  /** What a sandbox holds now: live collections, their documents and the documents' bytes (plan quotas). */
  sandboxTotals(projectId: string, env: Env): Promise<SandboxTotals>;
}

/** Counts behind the document, collection and storage quotas of a plan. */
export interface SandboxTotals {
  collections: number;
  documents: number;
  storageBytes: number;
}
