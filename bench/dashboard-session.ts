/**
 * What the dashboard benches share: the web build, a real server in a temporary data directory, and Chromium
 * started and signed in the way the dashboard browser tests do it (packages/server/test/browser-kit.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@dossier/core';
import { loadConfig, startServer } from '@dossier/server';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, signInWithPassword } from '../packages/server/test/browser-kit.ts';

export const ROOT = join(import.meta.dirname, '..');

export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

type RunningServer = Awaited<ReturnType<typeof startServer>>;

/** The server and browser a bench drives, and the account the server created at its first start. */
export interface DashboardSession {
  server: RunningServer;
  browser: Browser;
  bootstrap: NonNullable<RunningServer['bootstrap']>;
}

/** Builds the dashboard if stale, starts a silent server and Chromium, runs `bench`, and removes them whatever it does. */
export async function withDashboard(name: string, bench: (session: DashboardSession) => Promise<void>): Promise<void> {
  execFileSync(process.execPath, [join(ROOT, 'packages', 'web', 'scripts', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const dataDir = mkdtempSync(join(tmpdir(), `dossier-${name}-bench-`));
  const config = { ...loadConfig([], {}), host: '127.0.0.1', port: 0, dataDir, embeddingModel: 'none', allowModelDownload: false, logLevel: 'silent' as const };
  const server = await startServer(config, { log: silentLogger });
  try {
    const browser = await launchChromium();
    try {
      await bench({ server, browser, bootstrap: server.bootstrap! });
    } finally {
      await browser.close();
    }
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A page of a new browser context, signed in with the bootstrap account and showing the collections. */
export async function signedInPage({ server, browser, bootstrap }: DashboardSession, viewport?: { width: number; height: number }): Promise<Page> {
  const page = await (await browser.newContext(viewport ? { viewport } : {})).newPage();
  await signInWithPassword(page, server.url, bootstrap);
  await page.getByRole('heading', { name: 'Collections' }).waitFor();
  return page;
}

/**
 * Frame times (ms) in the page while `advance` (page JavaScript: `(element, frames) => boolean`, run once a frame on the
 * element `selector` finds) keeps the page busy; it returns false when done. The first frame is left out.
 */
export function frameTimes(page: Page, selector: string, advance: string): Promise<number[]> {
  return page.evaluate<number[]>(`new Promise((resolve) => {
    const element = document.querySelector(${JSON.stringify(selector)});
    const advance = ${advance};
    const frames = [];
    let last = performance.now();
    const step = () => {
      const now = performance.now();
      frames.push(now - last);
      last = now;
      if (!advance(element, frames)) return resolve(frames.slice(1));
      requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  })`);
}
