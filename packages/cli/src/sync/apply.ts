import { openAsBlob } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Document } from '../api-types.ts';
import type { ApiClient } from '../client.ts';
import { CliError } from '../errors.ts';
import { pool } from '../pool.ts';
import type { LocalFile } from './local.ts';
import type { ManifestEntry } from './plan.ts';

/** A file sent with the batch upload: at most this many per request, this many bytes per request, and 25 MB each. */
export const BATCH_FILES = 100;
export const BATCH_BYTES = 16 * 1024 * 1024;
export const DIRECT_MAX_BYTES = 25 * 1024 * 1024;
const DELETE_BATCH = 500;

/** What happened to one file or document, as the sync reports it. */
export type SyncEvent =
  | { type: 'added' | 'replaced'; path: string; documentId: string; version: number }
  | { type: 'deleted'; path: string; documentId: string }
  | { type: 'failed'; path: string; error: string };

/** How requests run: the CLI's Pace (retrying busy answers at the server's pace), or once. */
export type Attempt = <T>(request: () => Promise<T>) => Promise<T>;

export interface ApplyOptions {
  api: ApiClient;
  collection: string;
  attempt: Attempt;
  signal?: AbortSignal;
  /** Requests in flight at once (each a batch of up to BATCH_FILES files). */
  concurrency: number;
  /** Files larger than this go one by one through upload-url, the presigned way (default DIRECT_MAX_BYTES). */
  directMaxBytes?: number;
  emit: (e: SyncEvent) => void;
}

/** Group files into requests of at most BATCH_FILES files and BATCH_BYTES bytes (a larger file goes alone). */
export function batchesOf(files: LocalFile[]): LocalFile[][] {
  const out: LocalFile[][] = [];
  let current: LocalFile[] = [];
  let bytes = 0;
  for (const f of files) {
    if (current.length > 0 && (current.length >= BATCH_FILES || bytes + f.size > BATCH_BYTES)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(f);
    bytes += f.size;
  }
  if (current.length > 0) out.push(current);
  return out;
}

async function postBatch(o: ApplyOptions, files: LocalFile[]): Promise<Document[]> {
  const form = new FormData();
  for (const f of files) form.append('file', new Blob([await readFile(f.absolute)]), basename(f.absolute));
  form.append('sourcePaths', JSON.stringify(files.map((f) => f.path)));
  const path = `/collections/${o.collection}/documents/batch`;
  const answer = await o.attempt(() => o.api.json<{ documents: Document[] }>('POST', path, { body: form, timeoutMs: null, signal: o.signal }));
  return answer.documents;
}

/** A refusal about one file (400, 409, 413, 415, 422): the others still go; anything else stops the sync. */
const fileLevel = (err: unknown): boolean => err instanceof CliError && [400, 409, 413, 415, 422].includes(err.status ?? 0);

function report(o: ApplyOptions, file: LocalFile, doc: Document): void {
  const version = (doc as Document & { version?: number }).version ?? 1;
  o.emit({ type: version > 1 ? 'replaced' : 'added', path: file.path, documentId: doc.id, version });
}

/**
 * Send one batch; when the request fails (one file still processing its previous version, say), send its files one
 * at a time so the others go through: the server leaves a file it already has (same path, same hash) as it is.
 */
async function sendBatch(o: ApplyOptions, files: LocalFile[]): Promise<void> {
  try {
    const docs = await postBatch(o, files);
    for (const [i, f] of files.entries()) report(o, f, docs[i]!);
    return;
  } catch (err) {
    if (!fileLevel(err)) throw err;
    if (files.length === 1) {
      o.emit({ type: 'failed', path: files[0]!.path, error: (err as Error).message });
      return;
    }
  }
  for (const f of files) await sendBatch(o, [f]);
}

interface UploadUrlAnswer {
  documentId: string;
  uploadUrl: string | null;
  document?: Document;
}

/**
 * A file over the direct limit, the way `dossier upload` sends it: upload-url with its content hash and source path
 * (the server answers with the document when it already holds this content), a PUT of the file to the presigned URL,
 * then confirm, which adds the document or replaces the content of the one of that path. Re-run after an interruption,
 * a file stored but not confirmed is confirmed without being sent again.
 */
async function sendPresigned(o: ApplyOptions, f: LocalFile): Promise<void> {
  const docs = `/collections/${o.collection}/documents`;
  const json = { filename: basename(f.absolute), contentType: 'application/octet-stream', fileSizeBytes: f.size, contentHash: f.hash, sourcePath: f.path };
  const start = await o.attempt(() => o.api.json<UploadUrlAnswer>('POST', `${docs}/upload-url`, { json, signal: o.signal }));
  const confirm = () => o.attempt(() => o.api.json<Document>('POST', `${docs}/${start.documentId}/confirm`, { json: {}, signal: o.signal }));
  if (start.uploadUrl === null && start.document) return report(o, f, start.document.status === 'pending' ? await confirm() : start.document);
  const body = await openAsBlob(f.absolute);
  // The presigned URL authorises the PUT by itself: the API key is not sent along (the URL may be another host).
  await o.attempt(() =>
    o.api.send('PUT', start.uploadUrl!, { body, headers: { 'content-type': 'application/octet-stream' }, timeoutMs: null, signal: o.signal, auth: false }),
  );
  report(o, f, await confirm());
}

async function sendOneLarge(o: ApplyOptions, f: LocalFile): Promise<void> {
  try {
    await sendPresigned(o, f);
  } catch (err) {
    if (!fileLevel(err)) throw err;
    o.emit({ type: 'failed', path: f.path, error: (err as Error).message });
  }
}

/** Upload new and changed files: batched up to the direct limit (25 MB), larger ones one by one the presigned way. */
export async function uploadFiles(o: ApplyOptions, files: LocalFile[]): Promise<void> {
  const limit = o.directMaxBytes ?? DIRECT_MAX_BYTES;
  await pool(batchesOf(files.filter((f) => f.size <= limit)), o.concurrency, (batch) => sendBatch(o, batch));
  await pool(
    files.filter((f) => f.size > limit),
    o.concurrency,
    (f) => sendOneLarge(o, f),
  );
}

/** Delete (softly: the server purges them after its grace period) the documents of files gone from the folder, 500 per request. */
export async function deleteDocuments(o: ApplyOptions, entries: ManifestEntry[]): Promise<void> {
  for (let i = 0; i < entries.length; i += DELETE_BATCH) {
    const part = entries.slice(i, i + DELETE_BATCH);
    const path = `/collections/${o.collection}/manifest/delete`;
    const answer = await o.attempt(() =>
      o.api.json<{ deleted: { path: string; documentId: string }[] }>('POST', path, { json: { paths: part.map((e) => e.path) }, signal: o.signal }),
    );
    for (const e of answer.deleted) o.emit({ type: 'deleted', path: e.path, documentId: e.documentId });
  }
}
