import { DossierError, type Metadata } from '@dossier/core';
import { DIRECT_UPLOAD_MAX_BYTES } from '@dossier/core/internal';
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
  /** The form field the file came in (`file` for document uploads; `queries`, `qrels` for a golden-set upload). */
  field: string;
}

/** Files and fields of a multipart request. */
export interface MultipartForm {
  files: UploadedFile[];
  tags?: string[];
  metadata?: Metadata;
  /** Issue 43: each file's path within the source it mirrors, in the order of the files (`sourcePaths`, or `sourcePath` for one). */
  sourcePaths?: string[];
  /** Plain text fields a route declared (MultipartLimits.textFields), by name. */
  fields: Record<string, string>;
}

/** Limits of a multipart request: per file (25 MB), file count, and total bytes; and which fields it takes. */
export interface MultipartLimits {
  maxFiles: number;
  maxTotalBytes: number;
  /**
   * A form of other fields than a document upload's (issue 38: a golden set's BEIR files): file parts of any field
   * name are kept (the route checks their names once it has found the collection, so a stranger gets 404 first),
   * and these text fields are collected into `fields`; any other text field is a 400.
   */
  textFields?: readonly string[];
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

function applyField(form: MultipartForm, name: string, value: string, limits: MultipartLimits): void {
  if (limits.textFields) {
    if (!limits.textFields.includes(name))
      throw new DossierError('invalid_input', `Unknown form field '${name}'; expected ${limits.textFields.join(', ')} and the files`);
    form.fields[name] = value;
  } else if (name === 'tags') {
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

/** Refuse, with a 400 naming what is wrong, a Content-Type that is not multipart/form-data with a boundary. */
function requireBoundary(type: string): void {
  if (!/^multipart\/form-data\b/i.test(type)) throw new DossierError('invalid_input', 'Expected a multipart/form-data body with a file field');
  const boundary = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(type);
  if (!boundary) throw new DossierError('invalid_input', 'The multipart/form-data Content-Type has no boundary parameter');
}

/** A parse error of the body, named: busboy's own words ("Unexpected end of form", "Malformed part header"). */
const malformed = (err: unknown) => new DossierError('invalid_input', `Malformed multipart body: ${err instanceof Error ? err.message : String(err)}`);

/** The client went away before the body ended: the error middleware answers nothing (499) and logs no alarm. */
function disconnected(): Error {
  return Object.assign(new Error('The client disconnected before the multipart body ended'), { code: 'ECONNRESET' });
}

/**
 * Parse a multipart body, stopping with 413 as soon as a file passes 25 MB or the request passes its total. Every
 * stream involved (the request, the parser, each file) has an error path: a broken body is a 400 naming what was
 * wrong, never an unhandled 'error' event that would end the process.
 */
export function readMultipart(ctx: Context, limits: MultipartLimits): Promise<MultipartForm> {
  try {
    requireBoundary(ctx.get('content-type'));
  } catch (err) {
    return Promise.reject(err);
  }
  return new Promise((resolve, reject) => {
    const form: MultipartForm = { files: [], fields: {} };
    let failed = false;
    let bb: busboy.Busboy | null = null;
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      // Unpiped, not destroyed: busboy still touches the file stream after some events ('limit'), and a parser fed
      // nothing more emits nothing more.
      if (bb) ctx.req.unpipe(bb);
      ctx.req.resume(); // drain the rest without keeping it
      reject(err);
    };
    ctx.req.on('error', () => fail(disconnected()));
    ctx.req.once('close', () => {
      if (!ctx.req.complete) fail(disconnected());
    });
    if (ctx.req.destroyed) return fail(disconnected()); // gone before this handler ran: no 'close' is coming
    try {
      bb = parser(ctx, form, limits, fail);
    } catch (err) {
      return fail(malformed(err)); // busboy refuses a Content-Type it cannot parse by throwing
    }
    bb.on('close', () => {
      if (!failed) resolve(form);
    });
    ctx.req.pipe(bb);
  });
}

/** A busboy parser filling `form`, every failure reported through `fail`. */
function parser(ctx: Context, form: MultipartForm, limits: MultipartLimits, fail: (err: unknown) => void): busboy.Busboy {
  // busboy fires 'limit' when a file *reaches* fileSize; +1 so exactly 25 MB is accepted and only larger is 413 (spec: Limits).
  const fileSize = DIRECT_UPLOAD_MAX_BYTES + 1;
  // defParamCharset: browsers, curl and fetch's FormData send the file name as raw UTF-8 bytes in `filename="…"`;
  // busboy would read them as Latin-1 (`Résumé` → `RÃ©sumÃ©`). `filename*=UTF-8''…` is decoded either way.
  const bb = busboy({ headers: ctx.req.headers, defParamCharset: 'utf8', limits: { fileSize, files: limits.maxFiles, fields: 20, fieldSize: 1024 * 1024 } });
  let total = 0;
  bb.on('file', (name, stream, info) => {
    // First of all: a body that ends inside this file destroys the stream with an error, which must have a listener.
    stream.on('error', (err) => fail(malformed(err)));
    if (!limits.textFields && name !== 'file' && name !== 'files') return fail(new DossierError('invalid_input', `Unknown file field '${name}'; use 'file'`));
    const parts: Buffer[] = [];
    const hash = createHash('sha256');
    stream.on('data', (d: Buffer) => {
      total += d.length;
      if (total > limits.maxTotalBytes) return fail(new DossierError('payload_too_large', `Request exceeds ${limits.maxTotalBytes} bytes`));
      parts.push(d);
      hash.update(d);
    });
    stream.on('limit', () =>
      fail(new DossierError('payload_too_large', `File '${info.filename}' exceeds the 25 MB limit of direct upload; use upload-url for larger files`)),
    );
    stream.on('end', () => {
      form.files.push({
        filename: info.filename ?? 'unnamed',
        contentType: info.mimeType,
        bytes: Buffer.concat(parts),
        contentHash: `sha256:${hash.digest('hex')}`,
        field: name,
      });
    });
  });
  bb.on('field', (name, value) => {
    try {
      applyField(form, name, value, limits);
    } catch (err) {
      fail(err);
    }
  });
  bb.on('filesLimit', () => fail(new DossierError('invalid_input', `At most ${limits.maxFiles} files per request`)));
  bb.on('error', (err) => fail(malformed(err)));
  return bb;
}
