import type { JsonValue, Metadata } from '../domain/types.ts';

/** JSON with object keys sorted at every level, so equal values always serialise equally. */
export function canonicalJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k] as JsonValue)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** `key=<canonical JSON>` for every top-level pair: the form metadata filters use inside the index. */
export function metadataPairs(metadata: Metadata): string[] {
  return Object.entries(metadata).map(([k, v]) => `${k}=${canonicalJson(v)}`);
}
