import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/** Piscina options that start a worker file, whether it is compiled JavaScript or TypeScript source. */
export interface WorkerFileOptions {
  filename: string;
  execArgv?: string[];
}

/**
 * Piscina loads a worker file with `require()` first and `import()` only when that fails. On Node versions where
 * `require()` loads ES modules synchronously (20.19+, 22.12+), a process stopped while a worker thread was inside that
 * synchronous load died with a V8 fatal error (`v8::Module::IsGraphAsync must be used on an instantiated module`,
 * exit 134: `dossier serve` stopped by Ctrl-C right after start, in the consumer test). Turning synchronous ESM
 * loading off in the worker makes `require()` refuse at once, so the module loads through `import()`, which a
 * stopping thread abandons cleanly.
 */
const NO_REQUIRE_ESM = process.allowedNodeEnvironmentFlags.has('--experimental-require-module') ? ['--no-experimental-require-module'] : [];

/**
 * Options for starting `url` in a piscina pool. A worker thread gets none of vitest's module transform,
 * so a `.ts` worker file (tests, `node --import tsx`) is started with the tsx loader in its own execArgv.
 * tsx is resolved to an absolute URL so the process's working directory does not matter.
 */
export function workerOptions(url: URL): WorkerFileOptions {
  const filename = url.href;
  if (!url.pathname.endsWith('.ts')) return { filename, execArgv: NO_REQUIRE_ESM };
  return { filename, execArgv: [...NO_REQUIRE_ESM, '--import', tsxLoader()] };
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
