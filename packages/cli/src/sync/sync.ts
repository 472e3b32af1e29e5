import type { ApiClient } from '../client.ts';
import { CliError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { type Attempt, deleteDocuments, type SyncEvent, uploadFiles } from './apply.ts';
import { type HashCache, scanFolder } from './local.ts';
import { planSync, readManifest, type SyncPlan } from './plan.ts';

export type { SyncEvent } from './apply.ts';
export type { SyncPlan } from './plan.ts';

/** Default share of a collection's synced documents one sync may delete without `force`. */
export const DEFAULT_MAX_DELETE_SHARE = 0.2;

export interface SyncOptions {
  api: ApiClient;
  collection: string;
  folder: string;
  /** Delete documents whose files are gone (default: keep them). */
  delete?: boolean;
  /** Work out and return the plan only; change nothing. */
  dryRun?: boolean;
  /** Delete even more than maxDeleteShare of the collection's synced documents. */
  force?: boolean;
  /** Largest share (0–1) of the synced documents one run may delete without force (default 0.2). */
  maxDeleteShare?: number;
  /** Batch requests in flight at once (default 4). */
  concurrency?: number;
  /** Files larger than this go through upload-url, the presigned way (default 25 MB, the direct upload's limit). */
  directMaxBytes?: number;
  attempt?: Attempt;
  signal?: AbortSignal;
  /** Told of every file added, replaced, deleted or failed. */
  onEvent?: (e: SyncEvent) => void;
  /** Hashes kept across runs of one process (watching), so unchanged files are not read again. */
  cache?: HashCache;
}

export interface SyncResult {
  plan: SyncPlan;
  added: number;
  replaced: number;
  deleted: number;
  unchanged: number;
  failed: number;
  dryRun: boolean;
}

/** Refuse a run that would delete more than the allowed share (an unmounted drive must not empty a collection). */
function checkDeleteShare(plan: SyncPlan, o: SyncOptions): void {
  const share = o.maxDeleteShare ?? DEFAULT_MAX_DELETE_SHARE;
  const deleting = plan.remove.length;
  if (!o.delete || o.force || deleting === 0 || deleting <= share * plan.total) return;
  throw new CliError(
    `refusing to delete ${deleting} of the collection's ${plan.total} synced documents (more than ${Math.round(share * 100)} %)`,
    EXIT.usage,
    'is the folder complete (a drive not mounted?); check with --dry-run, then pass --force to delete them',
  );
}

/**
 * Make the collection mirror the folder: compare the folder with the server's manifest by path and hash, upload new
 * files, replace changed ones (same document, next version), and with `delete` remove documents whose files are gone.
 * Running it again after an interruption does only what is left: the manifest says what the server already has.
 */
export async function syncFolder(o: SyncOptions): Promise<SyncResult> {
  const [files, manifest] = await Promise.all([scanFolder(o.folder, o.cache), readManifest(o.api, o.collection, o.signal)]);
  const plan = planSync(files, manifest);
  if (!o.delete) plan.remove = [];
  checkDeleteShare(plan, o);
  const result: SyncResult = { plan, added: 0, replaced: 0, deleted: 0, unchanged: plan.unchanged, failed: 0, dryRun: Boolean(o.dryRun) };
  if (o.dryRun) return result;
  const emit = (e: SyncEvent) => {
    if (e.type === 'added') result.added++;
    else if (e.type === 'replaced') result.replaced++;
    else if (e.type === 'deleted') result.deleted++;
    else result.failed++;
    o.onEvent?.(e);
  };
  const apply = {
    api: o.api,
    collection: o.collection,
    attempt: o.attempt ?? ((r) => r()),
    signal: o.signal,
    concurrency: o.concurrency ?? 4,
    directMaxBytes: o.directMaxBytes,
    emit,
  };
  await uploadFiles(apply, [...plan.add, ...plan.replace.map((r) => r.file)]);
  await deleteDocuments(apply, plan.remove);
  return result;
}
