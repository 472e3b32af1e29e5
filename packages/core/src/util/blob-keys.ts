/** The BlobStore port's key rules (ports/blob-store.ts), shared by every adapter so each rejects the same keys. */
import { invalid } from '../domain/errors.ts';

/** Validates an object key: relative, slash-separated, no `.`/`..`/empty segments, no backslash or NUL. */
export function checkBlobKey(key: string): string[] {
  if (typeof key !== 'string' || key === '') throw invalid('blob key must be a non-empty string');
  if (key.includes('\0') || key.includes('\\')) throw invalid(`blob key contains a forbidden character: ${JSON.stringify(key)}`);
  if (key.startsWith('/')) throw invalid(`blob key must be relative: ${JSON.stringify(key)}`);
  const segments = key.split('/');
  for (const s of segments) {
    if (s === '' || s === '.' || s === '..') throw invalid(`blob key has an empty, "." or ".." segment: ${JSON.stringify(key)}`);
  }
  return segments;
}

/** A prefix is a key followed by `/`, naming a folder of objects. */
export function checkBlobPrefix(prefix: string): string[] {
  if (typeof prefix !== 'string' || !prefix.endsWith('/')) throw invalid(`blob prefix must end with "/": ${JSON.stringify(prefix)}`);
  return checkBlobKey(prefix.slice(0, -1));
}
