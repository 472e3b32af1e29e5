import { DIRECT_UPLOAD_MAX_BYTES, DossierError, type Metadata } from '@dossier/core';
import { createHash } from 'node:crypto';
import busboy from 'busboy';
import type { Context } from 'koa';

/** One uploaded file held in memory (bounded by the per-file limit). */
export interface UploadedFile {
  filename: string;
  contentType: string;
  bytes: Uint8Array;
  /** `sha256:<hex>` of the bytes, hashed piece by piece as they arrived (a 25 MB file never hashes in one go). */
  contentHash: string;
}

/** Files and fields of a multipart request. */
export interface MultipartForm {
  files: UploadedFile[];
  tags?: string[];
  metadata?: Metadata;
  /** Issue 43: each file's path within the source it mirrors, in the order of the files (`sourcePaths`, or `sourcePath` for one). */
  sourcePaths?: string[];
}

/** Limits of a multipart request: per file (25 MB), file count, and total bytes. */
export interface MultipartLimits {
  maxFiles: number;
  maxTotalBytes: number;
}

function parseJsonField<T>(name: string, raw: string, check: (v: unknown) => boolean, shape: string): T {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new DossierError('invalid_input', `Field '${name}' must be JSON-encoded ${shape}`);
  }
  if (!check(value)) throw new DossierError('invalid_input', `Field '${name}' must be JSON-encoded ${shape}`);
  return value as T;
}

function applyField(form: MultipartForm, name: string, value: string): void {
  if (name === 'tags') {
    form.tags = parseJsonField(name, value, (v) => Array.isArray(v) && v.every((t) => typeof t === 'string'), 'array of strings');
  } else if (name === 'metadata') {
    form.metadata = parseJsonField(name, value, (v) => typeof v === 'object' && v !== null && !Array.isArray(v), 'object');
  } else if (name === 'sourcePaths') {
    form.sourcePaths = parseJsonField(name, value, (v) => Array.isArray(v) && v.every((t) => typeof t === 'string'), 'array of strings');
  } else if (name === 'sourcePath') {
    form.sourcePaths = [value];
  } else {
    throw new DossierError('invalid_input', `Unknown form field '${name}'; expected file, tags, metadata, sourcePath(s)`);
  }
}

/** Parse a multipart body, stopping with 413 as soon as a file passes 25 MB or the request passes its total. */
export function readMultipart(ctx: Context, limits: MultipartLimits): Promise<MultipartForm> {
  if (!/^multipart\/form-data/i.test(ctx.get('content-type'))) {
    return Promise.reject(new DossierError('invalid_input', 'Expected a multipart/form-data body with a file field'));
  }
  return new Promise((resolve, reject) => {
    const form: MultipartForm = { files: [] };
    let total = 0;
    let failed = false;
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      ctx.req.unpipe(bb);
      ctx.req.resume(); // drain the rest without keeping it
      reject(err);
    };
    // busboy fires 'limit' when a file *reaches* fileSize; +1 so exactly 25 MB is accepted and only larger is 413 (spec: Limits).
    const fileSize = DIRECT_UPLOAD_MAX_BYTES + 1;
    // defParamCharset: browsers, curl and fetch's FormData send the file name as raw UTF-8 bytes in `filename="…"`;
    // busboy would read them as Latin-1 (`Résumé` → `RÃ©sumÃ©`). `filename*=UTF-8''…` is decoded either way.
    const bb = busboy({ headers: ctx.req.headers, defParamCharset: 'utf8', limits: { fileSize, files: limits.maxFiles, fields: 20, fieldSize: 1024 * 1024 } });
    bb.on('file', (name, stream, info) => {
      if (name !== 'file' && name !== 'files') return fail(new DossierError('invalid_input', `Unknown file field '${name}'; use 'file'`));
      const parts: Buffer[] = [];
      const hash = createHash('sha256');
      stream.on('data', (d: Buffer) => {
        total += d.length;
        if (total > limits.maxTotalBytes) return fail(new DossierError('payload_too_large', `Request exceeds ${limits.maxTotalBytes} bytes`));
        if (failed) return;
        parts.push(d);
        hash.update(d);
      });
      stream.on('limit', () => fail(new DossierError('payload_too_large', `File '${info.filename}' exceeds the 25 MB limit of direct upload; use upload-url for larger files`)));
      stream.on('end', () => {
        if (!failed) form.files.push({ filename: info.filename ?? 'unnamed', contentType: info.mimeType, bytes: Buffer.concat(parts), contentHash: `sha256:${hash.digest('hex')}` });
      });
    });
    bb.on('field', (name, value) => {
      try {
        applyField(form, name, value);
      } catch (err) {
        fail(err);
      }
    });
    bb.on('filesLimit', () => fail(new DossierError('invalid_input', `At most ${limits.maxFiles} files per request`)));
    bb.on('error', () => fail(new DossierError('invalid_input', 'Malformed multipart body')));
    bb.on('close', () => {
      if (!failed) resolve(form);
    });
    ctx.req.pipe(bb);
  });
}
