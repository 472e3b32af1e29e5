import type { ApiClient } from '../client.ts';
import type { LocalFile } from './local.ts';

/** One entry of GET /collections/:id/manifest. */
export interface ManifestEntry {
  path: string;
  hash: string | null;
  documentId: string;
  version: number;
  status: string;
}

/** What a sync will do: files to add and replace, documents to delete, and how many are already in step. */
export interface SyncPlan {
  add: LocalFile[];
  replace: { file: LocalFile; entry: ManifestEntry }[];
  remove: ManifestEntry[];
  unchanged: number;
  /** Documents with a source path in the collection before the sync. */
  total: number;
}

const MANIFEST_PAGE = 5000;

/** The whole manifest of the collection, a page at a time. */
export async function readManifest(api: ApiClient, collection: string, signal?: AbortSignal): Promise<ManifestEntry[]> {
  const entries: ManifestEntry[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await api.json<{ entries: ManifestEntry[]; nextCursor: string | null }>('GET', `/collections/${collection}/manifest`, {
      query: { limit: MANIFEST_PAGE, after },
      signal,
      notFoundHint: 'pass -c <collection-id> or run `dossier collections list`',
    });
    entries.push(...page.entries);
    if (page.nextCursor === null) return entries;
    after = page.nextCursor;
  }
}

/**
 * Compare the folder with the manifest by path and hash: a new path is added, another hash (or a document in error)
 * is replaced, a path no longer in the folder is removed (only when deleting).
 */
export function planSync(files: LocalFile[], manifest: ManifestEntry[]): SyncPlan {
  const byPath = new Map(manifest.map((e) => [e.path, e]));
  const plan: SyncPlan = { add: [], replace: [], remove: [], unchanged: 0, total: manifest.length };
  const seen = new Set<string>();
  for (const file of files) {
    seen.add(file.path);
    const entry = byPath.get(file.path);
    if (!entry) plan.add.push(file);
    else if (entry.hash !== file.hash || entry.status === 'error') plan.replace.push({ file, entry });
    else plan.unchanged++;
  }
  plan.remove = manifest.filter((e) => !seen.has(e.path));
  return plan;
}
