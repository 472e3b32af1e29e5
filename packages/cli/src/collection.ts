import type { ApiClient } from './client.ts';
import { CliError, missingKeyError, usageError } from './errors.ts';
import { EXIT } from './exit-codes.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (s: string): boolean => UUID.test(s);

/** The hint for every "which collection?" problem. */
export const COLLECTION_HINT = 'pass -c <collection-id> or run `dossier collections list`';

/**
 * The id of the collection to act on. An id is used as is; a name is looked up among the key's collections
 * (case-insensitive, exact), so `-c papers` works when the name is unique.
 */
export async function resolveCollection(api: () => ApiClient, wanted: string | undefined, hasKey: boolean): Promise<string> {
  if (!wanted) throw usageError('no collection chosen', COLLECTION_HINT);
  if (isUuid(wanted)) return wanted;
  if (!hasKey) throw missingKeyError(`finding the collection named '${wanted}' needs an API key`);
  const list = await api().json<{ id: string; name: string }[]>('GET', '/collections');
  const matches = list.filter((c) => c.name.toLowerCase() === wanted.toLowerCase());
  if (matches.length === 1) return matches[0]!.id;
  if (matches.length === 0) throw new CliError(`no collection is named '${wanted}'`, EXIT.notFound, COLLECTION_HINT);
  throw usageError(`${matches.length} collections are named '${wanted}': ${matches.map((c) => c.id).join(', ')}`, 'pass the id with -c <collection-id>');
}
