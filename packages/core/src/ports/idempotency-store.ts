/** A remembered request (issue 11: `Idempotency-Key`): pending while it runs, then its answer. */
export interface IdempotencyRecord {
  /** Whose key it is: the caller's credential (keys of different callers never collide). */
  scope: string;
  key: string;
  /** A hash of the request (method, path, body): the same key with another request is refused. */
  fingerprint: string;
  state: 'pending' | 'done';
  status: number | null;
  /** The answer's JSON. */
  body: string | null;
  createdAt: string;
}

/** The idempotency part of the MetadataStore. */
export interface IdempotencyStore {
  /**
   * Claim `key` for a request: insert it pending unless a record created after `staleBefore` holds it. Returns
   * null when claimed, else the record that holds it (older ones are replaced: expired, or a pending one abandoned).
   */
  claimIdempotencyKey(
    record: Pick<IdempotencyRecord, 'scope' | 'key' | 'fingerprint' | 'createdAt'>,
    staleBefore: { done: string; pending: string },
  ): Promise<IdempotencyRecord | null>;
  /** Store the answer of a claimed key. */
  completeIdempotencyKey(scope: string, key: string, status: number, body: string): Promise<void>;
  /** Drop a claim whose request failed, so a retry runs again. */
  releaseIdempotencyKey(scope: string, key: string): Promise<void>;
}
