import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/** Piscina options that start a worker file, whether it is compiled JavaScript or TypeScript source. */
export interface WorkerFileOptions {
  filename: string;
  execArgv?: string[];
}

/**
 * Options for starting `url` in a piscina pool. A worker thread gets none of vitest's module transform,
 * so a `.ts` worker file (tests, `node --import tsx`) is started with the tsx loader in its own execArgv.
 * tsx is resolved to an absolute URL so the process's working directory does not matter.
 */
export function workerOptions(url: URL): WorkerFileOptions {
  const filename = url.href;
  if (!url.pathname.endsWith('.ts')) return { filename };
  return { filename, execArgv: ['--import', tsxLoader()] };
}

function tsxLoader(): string {
  try {
    return pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  } catch {
    return 'tsx';
  }
}

/**
 * URL of a worker module next to the calling module, with the caller's own extension: `.ts` when running
 * from source, `.js` once compiled (TypeScript rewrites import specifiers, not URL strings).
 */
export function siblingWorkerUrl(basename: string, callerUrl: string): URL {
  const ext = new URL(callerUrl).pathname.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./${basename}${ext}`, callerUrl);
}
