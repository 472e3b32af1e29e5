/**
 * The idempotency group of the public API (`dossier.idempotency`): the bookkeeping behind the HTTP server's
 * `Idempotency-Key` header on creating requests. A key is kept 24 hours; a pending one is released after 5 minutes.
 */
import type { IdempotencyStart } from '../idempotency/service.ts';

/** `dossier.idempotency`: claim a key before running a request, record its answer after, or release it. */
export interface IdempotencyService {
  /**
   * Claim `key` in `scope` for a request with this fingerprint: `run` it (first time), or `replay` the stored answer.
   * @throws {DossierError} `invalid_input` (not 1 to 255 printable ASCII characters), `unprocessable` (the key was
   *   used with a different request), `conflict` (the first request with the key is still running).
   * @example
   * const start = await dossier.idempotency.begin(`project:${projectId}`, key, sha256(body));
   * if (start.kind === 'replay') return reply(start.status, start.body);
   */
  begin(scope: string, key: string, fingerprint: string): Promise<IdempotencyStart>;
  /** Record the answer of the request that holds the key, for later replays. */
  finish(scope: string, key: string, status: number, body: string): Promise<void>;
  /** Release a held key without an answer (the request failed before producing one), so a retry can run. */
  abandon(scope: string, key: string): Promise<void>;
}
