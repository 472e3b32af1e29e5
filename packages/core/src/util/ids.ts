import { createHash, randomBytes } from 'node:crypto';

let lastMs = 0;
let seq = 0;

/**
 * A time-ordered UUID (RFC 9562 version 7): 48 bits of Unix milliseconds, a 12-bit counter that keeps ids
 * made in the same millisecond in creation order, then 62 random bits. Lists ordered by
 * (createdAt, id) therefore keep insertion order even when two rows share a timestamp.
 */
export function newId(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    seq = randomBytes(2).readUInt16BE() & 0x3ff; // start low so the counter rarely overflows
  } else if (++seq > 0xfff) {
    lastMs += 1; // counter exhausted: borrow the next millisecond, staying monotonic
    seq = 0;
  }
  const hex = lastMs.toString(16).padStart(12, '0') + (0x7000 | seq).toString(16) + randomBytes(8).toString('hex');
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A stable UUID-shaped id derived from parts, so re-running a pipeline step rewrites the same rows. */
export function stableId(...parts: (string | number)[]): string {
  const h = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  const variant = ((Number.parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when s is a UUID string. */
export const isUuid = (s: string): boolean => UUID_RE.test(s);

/** Current time as an ISO string. */
export const nowIso = (): string => new Date().toISOString();
