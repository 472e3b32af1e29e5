import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { pool } from '../pool.ts';

/** A file of the folder being synced: its path relative to the folder (`/`-separated, NFC) and its content hash. */
export interface LocalFile {
  path: string;
  absolute: string;
  size: number;
  mtimeMs: number;
  hash: string;
}

/** Names never synced: version-control folders and the ignore file itself. */
const ALWAYS_IGNORED = ['.git/', '.hg/', '.svn/', '.dossierignore', 'node_modules/', '.DS_Store'];

/** Hashes kept between scans of one process (--watch): a file whose size and time did not change is not read again. */
export type HashCache = Map<string, { size: number; mtimeMs: number; hash: string }>;

/** The folder's ignore rules: the defaults, then `.dossierignore` (gitignore syntax) at its root when present. */
export async function ignoreRules(root: string): Promise<Ignore> {
  const rules = ignore().add(ALWAYS_IGNORED);
  const text = await readFile(join(root, '.dossierignore'), 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return '';
    throw err;
  });
  return rules.add(text);
}

/** Files up to this size are read in one call (a stream costs more than the read for a small file). */
const READ_WHOLE_MAX_BYTES = 1024 * 1024;
/** Files stated and hashed at once (their reads overlap; one at a time waits on each in turn). */
const SCAN_CONCURRENCY = 32;

async function sha256File(path: string, size: number): Promise<string> {
  const hash = createHash('sha256');
  if (size <= READ_WHOLE_MAX_BYTES) hash.update(await readFile(path));
  else for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return `sha256:${hash.digest('hex')}`;
}

/** Relative paths of every file under root that the rules keep, depth first, sorted. */
async function walk(root: string, rules: Ignore): Promise<string[]> {
  const out: string[] = [];
  const visit = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const e of entries) {
      const rel = relative(root, join(dir, e.name)).split(sep).join('/');
      if (e.isDirectory()) {
        if (!rules.ignores(`${rel}/`)) await visit(join(dir, e.name));
      } else if (e.isFile() && !rules.ignores(rel)) {
        out.push(rel);
      }
    }
  };
  await visit(root);
  return out.sort();
}

/** Every file of the folder to sync, hashed (a cached hash is reused when the size and modification time match). */
export async function scanFolder(root: string, cache: HashCache = new Map()): Promise<LocalFile[]> {
  const rules = await ignoreRules(root);
  const paths = await walk(root, rules);
  const found: (LocalFile | null)[] = new Array(paths.length).fill(null);
  await pool(paths, SCAN_CONCURRENCY, async (rel, i) => {
    const absolute = join(root, rel);
    const s = await stat(absolute).catch(() => null);
    if (!s) return; // removed while scanning
    const known = cache.get(rel);
    const hash = known && known.size === s.size && known.mtimeMs === s.mtimeMs ? known.hash : await sha256File(absolute, s.size);
    cache.set(rel, { size: s.size, mtimeMs: s.mtimeMs, hash });
    found[i] = { path: rel.normalize('NFC'), absolute, size: s.size, mtimeMs: s.mtimeMs, hash };
  });
  return found.filter((f) => f !== null);
}
