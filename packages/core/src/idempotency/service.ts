import type { IdempotencyStore } from '../ports/idempotency-store.ts';
import { DossierError } from '../domain/errors.ts';
import type { IdempotencyService } from '../api/idempotency.ts';

/** How long an answer is kept for replays (as payment APIs do: a day). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A request still pending after this long is taken as abandoned (its process died): a retry runs it again. */
export const IDEMPOTENCY_PENDING_MS = 5 * 60 * 1000;
/** Keys are opaque strings of printable ASCII (a UUID or a hash fits). */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** What to do with a request that carries an Idempotency-Key. */
export type IdempotencyStart = { kind: 'run' } | { kind: 'replay'; status: number; body: string };

/**
 * Idempotency-Key for creating requests (issue 11): the first request with a key runs and its answer is kept for a
 * day; a retry with the same key and the same request gets that answer without running again; the same key with
 * another request is refused (422); a retry while the first still runs gets 409.
 */
export function idempotencyService(store: IdempotencyStore): IdempotencyService {
  return {
    async begin(scope: string, key: string, fingerprint: string): Promise<IdempotencyStart> {
      if (!KEY_PATTERN.test(key)) throw new DossierError('invalid_input', 'Idempotency-Key must be 1 to 255 printable ASCII characters');
      const now = Date.now();
      const held = await store.claimIdempotencyKey(
        { scope, key, fingerprint, createdAt: new Date(now).toISOString() },
        { done: new Date(now - IDEMPOTENCY_TTL_MS).toISOString(), pending: new Date(now - IDEMPOTENCY_PENDING_MS).toISOString() },
      );
      if (!held) return { kind: 'run' };
      if (held.fingerprint !== fingerprint) throw new DossierError('unprocessable', 'This Idempotency-Key was used with a different request');
      if (held.state === 'pending' || held.status === null || held.body === null) {
        throw new DossierError('conflict', 'A request with this Idempotency-Key is still being processed; retry shortly');
      }
      return { kind: 'replay', status: held.status, body: held.body };
    },
    finish: (scope: string, key: string, status: number, body: string) => store.completeIdempotencyKey(scope, key, status, body),
    abandon: (scope: string, key: string) => store.releaseIdempotencyKey(scope, key),
  };
}

export type { IdempotencyService };
