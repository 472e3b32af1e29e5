import { DossierError } from '../domain/errors.ts';

/** Longest source path accepted, in characters. */
export const MAX_SOURCE_PATH_CHARS = 1024;

/**
 * A source path as stored (issue 43): relative, `/`-separated, Unicode NFC (a name typed on macOS matches the same
 * name typed elsewhere), without empty, `.` or `..` segments or control characters. Backslashes are separators.
 */
export function normalizeSourcePath(raw: string): string {
  const segments = raw
    .normalize('NFC')
    .split(/[\\/]/)
    .filter((s) => s !== '' && s !== '.');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (segments.length === 0 || segments.some((s) => s === '..' || /[\u0000-\u001f\u007f]/.test(s))) {
    throw new DossierError('invalid_input', `sourcePath '${raw.slice(0, 80)}' must be a relative path without '..' or control characters`);
  }
  const path = segments.join('/');
  if (path.length > MAX_SOURCE_PATH_CHARS) throw new DossierError('invalid_input', `sourcePath is longer than ${MAX_SOURCE_PATH_CHARS} characters`);
  return path;
}
