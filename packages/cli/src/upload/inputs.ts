import { createHash } from 'node:crypto';
import { createReadStream, openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { glob, isDynamicPattern } from 'tinyglobby';
import { usageError } from '../errors.ts';

/** One thing to upload: its name on the server, its size, its bytes as a Blob, and its SHA-256. */
export interface Payload {
  /** The path as the user gave it (or `-` for stdin), for messages. */
  label: string;
  /** The filename sent to the server. */
  name: string;
  size: number;
  blob(): Promise<Blob>;
  /** `sha256:<hex>`, as the API writes content hashes. */
  sha256(): Promise<string>;
}

function filePayload(path: string, size: number): Payload {
  return {
    label: path,
    name: basename(path),
    size,
    blob: () => openAsBlob(path),
    sha256: async () => {
      const hash = createHash('sha256');
      for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
      return `sha256:${hash.digest('hex')}`;
    },
  };
}

/** Standard input read whole (a pipe has no size until it ends). */
export async function stdinPayload(stdin: NodeJS.ReadableStream, name: string): Promise<Payload> {
  const chunks: Buffer[] = [];
  for await (const c of stdin) chunks.push(Buffer.from(c as Buffer));
  const bytes = Buffer.concat(chunks);
  if (bytes.length === 0) throw usageError('stdin was empty: nothing to upload', 'pipe a file in: cat notes.md | dossier upload - --filename notes.md');
  return {
    label: '-',
    name,
    size: bytes.length,
    blob: async () => new Blob([bytes]),
    sha256: async () => `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
  };
}

/** Files of a folder, recursively, skipping hidden files and folders (.git, .DS_Store). */
const folderFiles = (dir: string) =>
  glob('**/*', { cwd: dir, onlyFiles: true, dot: false, expandDirectories: false }).then((fs) => fs.sort().map((f) => join(dir, f)));

/** The files one argument stands for: itself, a folder's files, or a glob's matches. */
async function expandOne(arg: string): Promise<string[]> {
  const info = await stat(arg).catch(() => null);
  if (info?.isFile()) return [arg];
  if (info?.isDirectory()) {
    const files = await folderFiles(arg);
    if (files.length === 0) throw usageError(`the folder ${arg} has no files to upload`, 'hidden files (starting with a dot) are skipped');
    return files;
  }
  if (isDynamicPattern(arg)) {
    // Matches are shown the way the pattern was written: absolute for an absolute pattern, else relative.
    const files = (await glob(arg, { onlyFiles: true, dot: false, expandDirectories: false, absolute: isAbsolute(arg) })).sort();
    if (files.length === 0) throw usageError(`no files match '${arg}'`, 'check the pattern; ** matches folders at any depth, e.g. "docs/**/*.md"');
    return files;
  }
  throw usageError(`no such file or folder: ${arg}`, 'give files, folders, globs such as "docs/**/*.pdf", or - for stdin');
}

/**
 * The files the arguments name (paths, folders, globs), each once, in argument order. `-` (stdin) is
 * handled by the caller; it is returned as its index so its place in the order is kept.
 */
export async function expandInputs(args: string[]): Promise<{ files: Payload[]; stdinAt: number | null }> {
  const seen = new Set<string>();
  const files: Payload[] = [];
  let stdinAt: number | null = null;
  for (const arg of args) {
    if (arg === '-') {
      if (stdinAt !== null) throw usageError('- (stdin) can be given only once');
      stdinAt = files.length;
      continue;
    }
    for (const path of await expandOne(arg)) {
      const abs = resolve(path);
      if (seen.has(abs)) continue;
      seen.add(abs);
      files.push(filePayload(path, (await stat(path)).size));
    }
  }
  return { files, stdinAt };
}
