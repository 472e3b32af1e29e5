#!/usr/bin/env node
/**
 * Runs before `pnpm pack` of @dossier/server (prepack): builds the dashboard when its build is stale and copies it
 * into dist/web, so the published package serves the dashboard at `/` with nothing else to install (issue 34).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const server = join(import.meta.dirname, '..');
const web = join(server, '..', 'web');
const built = spawnSync(process.execPath, [join(web, 'scripts', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
if (!existsSync(join(web, 'dist', 'index.html'))) throw new Error('the dashboard build wrote no dist/index.html');
const target = join(server, 'dist', 'web');
rmSync(target, { recursive: true, force: true });
cpSync(join(web, 'dist'), target, { recursive: true });
