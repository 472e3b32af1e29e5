import type { RUN_STATUSES, SOURCE_KINDS, SOURCE_RUN_TRIGGERS } from '../vocabulary.ts';
/** Issue 43: a source the server itself syncs into a collection, and the runs of that sync. */

export type SourceKind = (typeof SOURCE_KINDS)[number];

export interface SourceRecord {
  id: string;
  collectionId: string;
  kind: SourceKind;
  /** The folder's absolute path on the server (kind folder), or `bucket/prefix` (kind s3). */
  location: string;
  settings: Record<string, string>;
  /** Credentials sealed with the SecretBox, like provider keys (kind s3), or null. */
  credentialsEncrypted: string | null;
  /** Minutes between scheduled runs; null: only on demand. */
  intervalMinutes: number | null;
  /** Largest share (0–1) of the synced documents one run may delete; a run that would delete more fails instead. */
  maxDeleteShare: number;
  paused: boolean;
  nextRunAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export type SourceRunStatus = (typeof RUN_STATUSES)[number];

export interface SourceRunRecord {
  id: string;
  sourceId: string;
  collectionId: string;
  status: SourceRunStatus;
  trigger: (typeof SOURCE_RUN_TRIGGERS)[number];
  added: number;
  updated: number;
  deleted: number;
  unchanged: number;
  failed: number;
  /** Paths deleted (softly: purged after the grace period) and paths that failed, with why. */
  details: { deletedPaths: string[]; failures: { path: string; error: string }[]; purgeAfter: string | null };
  error: string | null;
  startedAt: string;
  finishedAt: string | null;
}
