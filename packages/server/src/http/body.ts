import { DossierError } from '@dossier/core';
import type { Context } from 'koa';

/** Largest JSON body accepted (bulk updates of 500 documents with metadata fit well within it). */
const MAX_JSON_BYTES = 10 * 1024 * 1024;

/** Read the request body as JSON: 400 for malformed JSON or a wrong content type, 413 when too large. */
export async function readJson(ctx: Context): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_JSON_BYTES) throw new DossierError('payload_too_large', 'JSON body exceeds 10 MB');
    chunks.push(chunk);
  }
  if (size === 0) return {};
  const type = ctx.get('content-type');
  if (type && !/json/i.test(type)) throw new DossierError('invalid_input', `Expected a JSON body (Content-Type: application/json), got ${type}`);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new DossierError('invalid_input', 'Malformed JSON body');
  }
}

/** Query-string values as a plain object of the first value per key. */
export const queryObject = (ctx: Context): Record<string, string> =>
  Object.fromEntries(Object.entries(ctx.query).map(([k, v]) => [k, Array.isArray(v) ? (v[0] ?? '') : (v ?? '')]));
