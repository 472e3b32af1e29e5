#!/usr/bin/env node
import nodeModule from 'node:module';

/**
 * Node's module compile cache (Node 22.1 and later; NODE_COMPILE_CACHE picks its folder, NODE_DISABLE_COMPILE_CACHE
 * turns it off): every command is a new process, and compiling the modules it loads is most of its start. Turned on
 * before the commands' modules load, which is why they are imported in main(). Quiet when it cannot be turned on.
 */
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

/** `dossier`: run the command, flush stdout and stderr, exit with its code. Ctrl-C aborts; a second one exits at once. */
async function main(): Promise<void> {
  // `pnpm dossier …` runs scripts from the workspace root; paths on the command line mean the caller's directory.
  if (process.env.npm_lifecycle_event === 'dossier' && process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
  const interrupt = new AbortController();
  process.on('SIGINT', () => {
    if (interrupt.signal.aborted) process.exit(130);
    interrupt.abort();
  });
  // A reader that goes away (`dossier docs list | head -1`) is not an error.
  for (const s of [process.stdout, process.stderr]) {
    s.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(0);
      throw err;
    });
  }
  const { run } = await import('./run.ts');
  const code = await run(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    signal: interrupt.signal,
  });
  const flush = (s: NodeJS.WriteStream) => new Promise<void>((resolve) => s.write('', () => resolve()));
  await Promise.all([flush(process.stdout), flush(process.stderr)]);
  process.exit(code);
}

void main();
