import { createHash, randomUUID } from 'node:crypto';

/** A random UUID v4. */
export const newId = (): string => randomUUID();

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
