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
  /**
   * Runs each request (default: once). The upload command retries a busy answer (429/503) here, request by request,
   * so a file whose PUT was stored is never sent again because its confirm was turned away.
   */
  attempt?: <T>(request: () => Promise<T>) => Promise<T>;
}

const once = <T>(request: () => Promise<T>): Promise<T> => request();

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
  const attempt = o.attempt ?? once;
  const document = await attempt(() =>
    api.json<Document>('POST', `/collections/${collection}/documents`, { body: form, timeoutMs: null, signal: o.signal, ...notFound }),
  );
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
  const attempt = o.attempt ?? once;
  const start = await attempt(() =>
    api.json<{ documentId: string; uploadUrl: string | null; document?: Document }>('POST', `/collections/${collection}/documents/upload-url`, {
      json: {
        filename: p.name,
        contentType: 'application/octet-stream',
        fileSizeBytes: p.size,
        ...hash,
        tags: o.tags,
        ...(o.metadata ? { metadata: o.metadata } : {}),
      },
      headers: retrySafe,
      signal: o.signal,
      ...notFound,
    }),
  );
  const confirm = () =>
    attempt(() => api.json<Document>('POST', `/collections/${collection}/documents/${start.documentId}/confirm`, { json: {}, signal: o.signal, ...notFound }));
  if (start.uploadUrl === null && start.document) {
    // Stored by an interrupted run that never confirmed it: confirm it now (nothing is sent again).
    if (start.document.status !== 'pending') return { document: start.document, reused: true, via: 'presigned' };
    return { document: await confirm(), reused: false, via: 'presigned' };
  }
  // The presigned URL authorises the PUT by itself: the API key is not sent along (the URL may be another host).
  const body = await p.blob();
  await attempt(() =>
    api.send('PUT', start.uploadUrl!, { body, headers: { 'content-type': 'application/octet-stream' }, timeoutMs: null, signal: o.signal, auth: false }),
  );
  return { document: await confirm(), reused: false, via: 'presigned' };
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
