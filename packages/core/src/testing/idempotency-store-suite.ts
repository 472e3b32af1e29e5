import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { IdempotencyStore } from '../ports/idempotency-store.ts';

/**
 * Conformance tests of the IdempotencyStore part of a MetadataStore (issue 11; run by metadataStoreSuite). It needs
 * nothing else of the store, so a replacing IdempotencyStore (composeMetadataStore) runs it on its own.
 */
export function idempotencyStoreTests(store: () => IdempotencyStore): void {
  const uid = (prefix: string): string => `${prefix}_${randomUUID()}`;
  describe('idempotency keys', () => {
    it('claims idempotency keys once, keeps the answer, releases a pending claim and replaces stale ones', async () => {
      const scope = uid('scope');
      const record = { scope, key: 'k1', fingerprint: 'f1', createdAt: '2024-05-01T00:00:10.000Z' };
      const stale = { done: '2024-05-01T00:00:00.000Z', pending: '2024-05-01T00:00:00.000Z' };
      expect(await store().claimIdempotencyKey(record, stale)).toBeNull();
      expect(await store().claimIdempotencyKey({ ...record, fingerprint: 'f2' }, stale)).toMatchObject({ state: 'pending', fingerprint: 'f1' });
      await store().completeIdempotencyKey(scope, 'k1', 201, '{"id":"x"}');
      expect(await store().claimIdempotencyKey(record, stale)).toMatchObject({ state: 'done', status: 201, body: '{"id":"x"}' });
      await store().releaseIdempotencyKey(scope, 'k1'); // a done answer is not released
      expect(await store().claimIdempotencyKey(record, stale)).toMatchObject({ state: 'done' });
      expect(await store().claimIdempotencyKey(record, { done: '2024-05-01T00:00:20.000Z', pending: stale.pending })).toBeNull();
      await store().releaseIdempotencyKey(scope, 'k1');
      expect(await store().claimIdempotencyKey({ ...record, key: 'k1' }, stale)).toBeNull();
      expect(await store().claimIdempotencyKey({ ...record, scope: uid('other') }, stale)).toBeNull();
    });

    it('gives an idempotency key to exactly one of several racing claimers', async () => {
      const record = { scope: uid('scope'), key: 'k1', fingerprint: 'f1', createdAt: '2024-05-01T00:00:10.000Z' };
      const stale = { done: '2024-05-01T00:00:00.000Z', pending: '2024-05-01T00:00:00.000Z' };
      const claims = await Promise.all(Array.from({ length: 6 }, () => store().claimIdempotencyKey(record, stale)));
      expect(claims.filter((claim) => claim === null)).toHaveLength(1);
      expect(claims.filter((claim) => claim?.state === 'pending')).toHaveLength(5);
    });
  });
}
