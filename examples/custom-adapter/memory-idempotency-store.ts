/**
 * One feature store of your own (issue 35): the idempotency part of the metadata kept in memory, while every other part
 * stays in the embedded SQLite store. It passes that part's conformance suite from the test kit
 * (`idempotencyStoreTests` of `@dossier/core/testing`, see custom-adapter.test.ts). A store that replaces a part keeps
 * its own rows, so pick a part that stands alone (see composeMetadataStore).
 */
import type { IdempotencyRecord, IdempotencyStore } from '@dossier/core';

/** Idempotency keys by scope and key; `records()` lets the example show where they went. */
export function memoryIdempotencyStore(): IdempotencyStore & { records(): IdempotencyRecord[] } {
  const held = new Map<string, IdempotencyRecord>();
  const id = (scope: string, key: string) => JSON.stringify([scope, key]);
  return {
    records: () => [...held.values()],
    // Single-threaded JavaScript makes the check and the insert one step, as the port's transaction does in SQL.
    async claimIdempotencyKey(record, staleBefore) {
      const existing = held.get(id(record.scope, record.key));
      const stale = existing && existing.createdAt < (existing.state === 'done' ? staleBefore.done : staleBefore.pending);
      if (existing && !stale) return { ...existing };
      held.set(id(record.scope, record.key), { ...record, state: 'pending', status: null, body: null });
      return null;
    },
    async completeIdempotencyKey(scope, key, status, body) {
      const existing = held.get(id(scope, key));
      if (existing) held.set(id(scope, key), { ...existing, state: 'done', status, body });
    },
    async releaseIdempotencyKey(scope, key) {
      if (held.get(id(scope, key))?.state === 'pending') held.delete(id(scope, key));
    },
  };
}
