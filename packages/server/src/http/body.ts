import { DossierError } from '@dossier/core';
import type { Context } from 'koa';

/** Largest JSON body of most routes; bulk routes declare more (500 documents with metadata fit in 10 MB). */
export const DEFAULT_JSON_BYTES = 1024 * 1024;
/** Deepest JSON nesting accepted in a body (metadata itself stops at 16 levels; the rest of a body adds a few). */
export const MAX_JSON_DEPTH = 64;

const OPEN = new Set([0x5b, 0x7b]); // [ {
const CLOSE = new Set([0x5d, 0x7d]); // ] }

/**
 * Nesting depth of JSON text, scanned without parsing (strings skipped), so a 5,000-deep body is refused before
 * JSON.parse or a recursive validator ever sees it. Stops as soon as it passes `cap`.
 */
export function textDepth(text: Buffer, cap: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const byte = text[i] as number;
    if (inString) {
      if (byte === 0x5c) i++; // backslash: skip the escaped character
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (OPEN.has(byte) && ++depth > cap) return depth;
    else if (CLOSE.has(byte)) depth--;
  }
  return depth;
}

const tooLarge = (maxBytes: number) =>
  new DossierError('invalid_input', `The JSON body exceeds ${maxBytes >= 1024 * 1024 ? `${maxBytes / (1024 * 1024)} MB` : `${maxBytes} bytes`}`);

/**
 * Read the request body as JSON: 400 for malformed JSON, a wrong content type, a body over `maxBytes` (refused from
 * its Content-Length before any byte is read when the client sends one) or nesting deeper than MAX_JSON_DEPTH.
 * JSON bodies are parameters, so an oversized one is a 400; 413 stays the answer to files over their limit.
 */
export async function readJson(ctx: Context, maxBytes = DEFAULT_JSON_BYTES): Promise<unknown> {
  if (Number(ctx.get('content-length') || 0) > maxBytes) throw tooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  if (size === 0) return {};
  const type = ctx.get('content-type');
  if (type && !/json/i.test(type)) throw new DossierError('invalid_input', `Expected a JSON body (Content-Type: application/json), got ${type}`);
  const text = Buffer.concat(chunks);
  if (textDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) throw new DossierError('invalid_input', `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(text.toString('utf8'));
  } catch {
    throw new DossierError('invalid_input', 'Malformed JSON body');
  }
}

/** Query-string values as a plain object of the first value per key. */
export const queryObject = (ctx: Context): Record<string, string> =>
  Object.fromEntries(Object.entries(ctx.query).map(([k, v]) => [k, Array.isArray(v) ? (v[0] ?? '') : (v ?? '')]));
