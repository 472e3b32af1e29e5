/** Metadata of a stored object. */
export interface BlobStat {
  size: number;
}

/**
 * Opaque byte storage keyed by relative, slash-separated keys.
 * Keys never escape the store: `..`, absolute paths, NUL and backslashes are rejected with an error.
 */
export interface BlobStore {
  /** Write (or overwrite) an object atomically. */
  put(key: string, data: Uint8Array): Promise<void>;
  /** Stream an object into storage atomically, stopping with an error once maxBytes is exceeded. Returns bytes written. */
  putStream(key: string, source: AsyncIterable<Uint8Array>, maxBytes: number): Promise<number>;
  /** Read an object; throws a not_found error when missing. */
  get(key: string): Promise<Uint8Array>;
  /** Size of an object, or null when missing. */
  stat(key: string): Promise<BlobStat | null>;
  /** Delete an object; missing objects are ignored. */
  delete(key: string): Promise<void>;
  /** Delete every object under a prefix (a folder-like key ending in `/`). */
  deletePrefix(prefix: string): Promise<void>;
  /** Total bytes stored under a prefix. */
  sizeOfPrefix(prefix: string): Promise<number>;
}
