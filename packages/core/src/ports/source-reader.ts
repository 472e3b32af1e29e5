/** Issue 43: what a server-side source offers a sync, whatever it is (a folder on the server, an S3 prefix). */

/** One file or object of a source: its path within the source and a stamp that changes when its content may have. */
export interface SourceEntry {
  path: string;
  /** `size:mtimeMs` for a file, `etag:<ETag>` for an S3 object. */
  stamp: string;
  size: number;
}

/** A source opened for one run: its listing, then the bytes of the entries whose stamp changed. */
export interface SourceReader {
  /** Every entry, ordered by path. */
  list(): Promise<SourceEntry[]>;
  /** The bytes of one listed entry (a small one: up to the 25 MB of a direct upload). */
  read(path: string): Promise<Uint8Array>;
  /** The bytes of one listed entry as a stream, for a large one: read as they are stored, never whole in memory. */
  stream(path: string): AsyncIterable<Uint8Array>;
}

/** Where an S3 source reads: an S3-protocol endpoint (absent: AWS), a bucket, a key prefix and the credentials. */
export interface S3SourceConfig {
  endpoint: string | null;
  region: string;
  bucket: string;
  /** Keys under it become paths relative to it (`docs/` + `a/b.md` → `a/b.md`); '' for the whole bucket. */
  prefix: string;
  forcePathStyle: boolean;
  credentials: { accessKeyId: string; secretAccessKey: string };
}

/**
 * Why an S3 source may not use this endpoint URL (it is or resolves to an address the server refuses: SSRF), or null.
 * Asked when a source is saved, so a refused endpoint is a 400 then, not a failed run later.
 */
export type S3EndpointCheck = (endpoint: string) => Promise<string | null>;

/** Opens an S3 prefix as a source (the adapters implement it with the AWS SDK). */
export type S3SourceOpener = (config: S3SourceConfig) => SourceReader & { close(): void };
