import { createHash, randomUUID } from 'node:crypto';
import type { Document } from '../api-types.ts';
import type { ApiClient } from '../client.ts';
import type { Payload } from './inputs.ts';

/** Largest file the direct multipart upload takes (spec: Limits); larger ones go through upload-url. */
export const DIRECT_UPLOAD_MAX_BYTES = 25 * 1024 * 1024;

export interface SendOptions {
  tags: string[];
  metadata?: Record<string, unknown>;
  /** With `force`: use upload-url for every file, not only those over 25 MB. */
  presigned: boolean;
  /** Upload even when the collection already has a file with the same content (no hash check). */
  force: boolean;
  signal: AbortSignal;
}

/** A sent file: the document, and whether the collection already had the same content (nothing uploaded: skipped). */
export interface Sent {
  document: Document;
  reused: boolean;
  via: 'direct' | 'presigned';
}

const notFound = { notFoundHint: 'pass -c <collection-id> or run `dossier collections list`' };

/** Unique to this run of the CLI: a later run relies on the content hash instead (a replay would skip its check). */
const RUN = randomUUID();

/** One key per file and run: a retry of the same upload within the run gets the first answer back. */
const idempotencyKey = (collection: string, name: string, contentHash: string): string =>
  `upload-${createHash('sha256').update(`${RUN}\n${collection}\n${name}\n${contentHash}`).digest('hex')}`;

/** POST /collections/:id/documents, multipart: file, tags (JSON array), metadata (JSON object). */
async function direct(api: ApiClient, collection: string, p: Payload, o: SendOptions): Promise<Sent> {
  const form = new FormData();
  form.append('file', await p.blob(), p.name);
  if (o.tags.length) form.append('tags', JSON.stringify(o.tags));
  if (o.metadata) form.append('metadata', JSON.stringify(o.metadata));
  const document = await api.json<Document>('POST', `/collections/${collection}/documents`, { body: form, timeoutMs: null, signal: o.signal, ...notFound });
  return { document, reused: false, via: 'direct' };
}

/**
 * upload-url, with the content hash unless forced; on a hit the existing document is returned (nothing is sent),
 * else PUT the bytes and confirm.
 */
async function presigned(api: ApiClient, collection: string, p: Payload, o: SendOptions): Promise<Sent> {
  const hash = o.force ? {} : { contentHash: await p.sha256() };
  // A retry of this request after a lost answer gets the first answer back, so the file is not registered twice
  // (issue 11); --force sends none, so a forced re-upload does run again.
  const retrySafe: Record<string, string> = o.force ? {} : { 'idempotency-key': idempotencyKey(collection, p.name, hash.contentHash ?? '') };
  const start = await api.json<{ documentId: string; uploadUrl: string | null; document?: Document }>('POST', `/collections/${collection}/documents/upload-url`, {
    json: { filename: p.name, contentType: 'application/octet-stream', fileSizeBytes: p.size, ...hash, tags: o.tags, ...(o.metadata ? { metadata: o.metadata } : {}) },
    headers: retrySafe,
    signal: o.signal,
    ...notFound,
  });
  if (start.uploadUrl === null && start.document) return { document: start.document, reused: true, via: 'presigned' };
  // The presigned URL authorises the PUT by itself: the API key is not sent along (the URL may be another host).
  await api.send('PUT', start.uploadUrl!, { body: await p.blob(), headers: { 'content-type': 'application/octet-stream' }, timeoutMs: null, signal: o.signal, auth: false });
  const document = await api.json<Document>('POST', `/collections/${collection}/documents/${start.documentId}/confirm`, { json: {}, signal: o.signal, ...notFound });
  return { document, reused: false, via: 'presigned' };
}

/**
 * Upload one payload. By default every file goes through upload-url with its SHA-256, so a file whose content the
 * collection already holds is skipped (issue 12: re-running an upload does not duplicate documents). With `force`,
 * files up to 25 MB go directly (one request) unless `presigned` is set, larger ones through upload-url, no hash.
 */
export function send(api: ApiClient, collection: string, p: Payload, o: SendOptions): Promise<Sent> {
  if (!o.force) return presigned(api, collection, p, o);
  return o.presigned || p.size > DIRECT_UPLOAD_MAX_BYTES ? presigned(api, collection, p, o) : direct(api, collection, p, o);
}
