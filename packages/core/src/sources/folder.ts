import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { DossierError } from '../domain/errors.ts';
import type { SourceEntry, SourceReader } from '../ports/source-reader.ts';

/** Folders never synced from a server folder. */
const SKIPPED_DIRS = new Set(['.git', '.hg', '.svn', 'node_modules']);

/**
 * The folder a source may read: an absolute path inside one of the operator's allowed roots (DOSSIER_SOURCE_FOLDERS),
 * resolved so `..` cannot leave them. No roots configured: folder sources are refused.
 */
export function allowedFolder(path: string, roots: readonly string[]): string {
  if (roots.length === 0)
    throw new DossierError('invalid_input', 'Folder sources are not enabled on this server (the operator lists allowed folders in DOSSIER_SOURCE_FOLDERS)');
  if (!isAbsolute(path)) throw new DossierError('invalid_input', 'A folder source needs an absolute path on the server');
  const target = resolve(path);
  const inside = roots.some((root) => {
    const rel = relative(resolve(root), target);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  });
  if (!inside) throw new DossierError('invalid_input', `The folder ${target} is not inside a folder this server allows sources from`);
  return target;
}

/** Every regular file under the folder (hidden files and version-control folders skipped), stamped `size:mtimeMs`. */
export async function listFolder(root: string): Promise<SourceEntry[]> {
  const top = await stat(root).catch(() => null);
  if (!top?.isDirectory()) throw new DossierError('invalid_input', `The source folder ${root} does not exist or is not a folder`);
  const out: SourceEntry[] = [];
  const visit = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      if (e.name.startsWith('.') || SKIPPED_DIRS.has(e.name)) continue;
      const full = join(dir, e.name);
      if (e.isDirectory()) await visit(full);
      else if (e.isFile()) {
        const s = await stat(full).catch(() => null);
        if (s) out.push({ path: relative(root, full).split(sep).join('/').normalize('NFC'), stamp: `${s.size}:${Math.trunc(s.mtimeMs)}`, size: s.size });
      }
    }
  };
  await visit(root);
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** A folder on the server's disk as a source: files stamped by size and modification time. */
export function folderReader(root: string): SourceReader {
  return {
    list: () => listFolder(root),
    read: async (path) => new Uint8Array(await readFile(join(root, path))),
    stream: (path) => createReadStream(join(root, path)),
  };
}
