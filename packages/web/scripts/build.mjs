#!/usr/bin/env node
/**
 * Builds the dashboard into dist/ with Vite and writes a gzip twin of each text file (the server sends those to
 * clients that take gzip). `--if-stale` skips the build when dist/ is newer than every source file, so the root
 * `start` script costs nothing after the first start.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';

const root = join(import.meta.dirname, '..');
const dist = join(root, 'dist');
// The dashboard takes core's vocabulary (enum lists) into its bundle, so a change there makes it stale too.
const SOURCES = ['src', 'public', 'index.html', 'vite.config.ts', 'package.json', '../core/src/vocabulary.ts'];

/** Every file under a path (the path itself when it is a file). */
function filesOf(path) {
  const info = statSync(path, { throwIfNoEntry: false });
  if (!info) return [];
  if (info.isFile()) return [path];
  return readdirSync(path).flatMap((name) => filesOf(join(path, name)));
}

const newest = (files) => Math.max(0, ...files.map((f) => statSync(f).mtimeMs));

function isStale() {
  const built = statSync(join(dist, 'index.html'), { throwIfNoEntry: false });
  return !built || newest(SOURCES.flatMap((p) => filesOf(join(root, p)))) > built.mtimeMs;
}

if (process.argv.includes('--if-stale') && !isStale()) process.exit(0);
// Always the production build, even when started from a test runner (vitest sets NODE_ENV=test, which would make
// Vite bundle React's development build).
process.env.NODE_ENV = 'production';
const started = performance.now();
await build({ root, logLevel: 'warn', configFile: join(root, 'vite.config.ts') });
for (const file of filesOf(dist).filter((f) => /\.(js|css|html|svg|json)$/.test(f))) writeFileSync(`${file}.gz`, gzipSync(readFileSync(file), { level: 9 }));
// index.html last, so its time marks a finished build.
const page = join(dist, 'index.html');
writeFileSync(page, readFileSync(page));
console.log(`dashboard built in ${Math.round(performance.now() - started)} ms (packages/web/dist)`);
