import { DossierError } from '@dossier/core';
import type { Context } from 'koa';
import { z } from 'zod';

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
      if (byte === 0x5c)
        i++; // backslash: skip the escaped character
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (OPEN.has(byte) && ++depth > cap) return depth;
    else if (CLOSE.has(byte)) depth--;
  }
  return depth;
}

const tooLarge = (maxBytes: number) =>
  new DossierError('invalid_input', `The body exceeds ${maxBytes >= 1024 * 1024 ? `${maxBytes / (1024 * 1024)} MB` : `${maxBytes} bytes`}`);

/**
 * Read the request body as JSON: 400 for malformed JSON, a wrong content type, a body over `maxBytes` (refused from
 * its Content-Length before any byte is read when the client sends one) or nesting deeper than MAX_JSON_DEPTH.
 * JSON bodies are parameters, so an oversized one is a 400; 413 stays the answer to files over their limit.
 */
export async function readJson(ctx: Context, maxBytes = DEFAULT_JSON_BYTES): Promise<unknown> {
  const bytes = await readBytes(ctx, maxBytes);
  if (bytes.length === 0) return {};
  const type = ctx.get('content-type');
  if (type && !/json/i.test(type)) throw new DossierError('invalid_input', `Expected a JSON body (Content-Type: application/json), got ${type}`);
  if (textDepth(bytes, MAX_JSON_DEPTH) > MAX_JSON_DEPTH)
    throw new DossierError('invalid_input', `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new DossierError('invalid_input', 'Malformed JSON body');
  }
}

/** The request body's bytes, refused past `maxBytes` (from Content-Length before reading, when sent). */
async function readBytes(ctx: Context, maxBytes: number): Promise<Buffer> {
  if (Number(ctx.get('content-length') || 0) > maxBytes) throw tooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Forms of the OAuth endpoints and pages are small: 64 KB holds every field several times over. */
export const FORM_BYTES = 64 * 1024;

/**
 * Read an `application/x-www-form-urlencoded` body (the OAuth token and revocation requests, the pages' forms) as an
 * object of strings. A field sent twice is refused (RFC 6749 §3.1: parameters must not repeat).
 */
export async function readForm(ctx: Context, maxBytes = FORM_BYTES): Promise<Record<string, string>> {
  const type = ctx.get('content-type');
  if (!/^application\/x-www-form-urlencoded\b/i.test(type))
    throw new DossierError('invalid_input', `Expected a form body (Content-Type: application/x-www-form-urlencoded), got ${type || 'none'}`);
  const form: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams((await readBytes(ctx, maxBytes)).toString('utf8'))) {
    if (Object.hasOwn(form, name)) throw new DossierError('invalid_input', `The field ${name} is sent more than once`);
    form[name] = value;
  }
  return form;
}

/** Query-string values as a plain object of the first value per key. */
export const queryObject = (ctx: Context): Record<string, string> =>
  Object.fromEntries(Object.entries(ctx.query).map(([k, v]) => [k, Array.isArray(v) ? (v[0] ?? '') : (v ?? '')]));

/**
 * A route's query input: the first value per key, except for the keys in `lists` (the array fields of the route's
 * query schema, see listKeys), which get every value (`?tags=a&tags=b` → ['a', 'b'], `?tags=a` → ['a']).
 */
export const queryInput = (ctx: Context, lists: ReadonlySet<string>): Record<string, string | string[]> =>
  Object.fromEntries(
    Object.entries(ctx.query).map(([k, v]) => {
      const values = Array.isArray(v) ? v : [v ?? ''];
      return [k, lists.has(k) ? values : (values[0] ?? '')];
    }),
  );

/** The fields of a query schema that take a list, i.e. a repeated parameter (their JSON Schema type is array). */
export function listKeys(schema: z.ZodType): ReadonlySet<string> {
  const js = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, { type?: unknown }> };
  return new Set(
    Object.entries(js.properties ?? {})
      .filter(([, field]) => field.type === 'array')
      .map(([name]) => name),
  );
}
