/** Metadata of a stored object. */
export interface BlobStat {
  size: number;
}

/**
 * A store that clients can upload to directly (S3 presigned PUT), so large files never pass through an API node.
 * Declared by the adapter; core falls back to its own signed upload route when a store has none.
 */
export interface ClientUploads {
  /** A URL that accepts a PUT of exactly `sizeBytes` bytes to `key` until `expiresInSeconds` have passed. */
  presignPut(key: string, sizeBytes: number, expiresInSeconds: number): Promise<string>;
}

/** How an object is written. */
export interface PutOptions {
  /**
   * Default true: put() returns once the bytes are on the disk (a local store flushes them). False: it may return once
   * the operating system holds them: safe from a crash of this process, not from a power cut until the system writes
   * them back (seconds). For objects whose size is recorded beside them and checked where they are read.
   */
  flush?: boolean;
}

/**
 * Opaque byte storage keyed by relative, slash-separated keys.
 * Keys never escape the store: `..`, absolute paths, NUL and backslashes are rejected with an error.
 */
export interface BlobStore {
  /** Write (or overwrite) an object atomically. */
  put(key: string, data: Uint8Array, options?: PutOptions): Promise<void>;
  /** Stream an object into storage atomically, stopping with an error once maxBytes is exceeded. Returns bytes written. */
  putStream(key: string, source: AsyncIterable<Uint8Array>, maxBytes: number): Promise<number>;
  /** Read an object; throws a not_found error when missing. */
  get(key: string): Promise<Uint8Array>;
  /** Size of an object, or null when missing. */
  stat(key: string): Promise<BlobStat | null>;
  /**
   * Move an object to another key, replacing what is there (a rename, or a server-side copy then a delete), without
   * its bytes passing through this process; a missing source is a not_found error.
   */
  move(fromKey: string, toKey: string): Promise<void>;
  /** Delete an object; missing objects are ignored. */
  delete(key: string): Promise<void>;
  /** Delete every object under a prefix (a folder-like key ending in `/`). */
  deletePrefix(prefix: string): Promise<void>;
  /** Total bytes stored under a prefix. */
  sizeOfPrefix(prefix: string): Promise<number>;
  /** Present when clients can upload straight into the store (see ClientUploads). */
  clientUploads?: ClientUploads;
}

/** Version of the BlobStore contract that `blobStoreSuite` checks (major: every adapter must change; minor: more checks). */
export const BLOB_STORE_SPEC_VERSION = '2.0.0';
