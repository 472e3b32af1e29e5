import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

/**
 * What every dashboard browser test shares (issues 34, 37, 38, 39, 42): Debian's Chromium, axe-core, a page that
 * records CSP refusals and page errors, and the password sign-in.
 */

/** Debian's Chromium when installed (`.ci/run` installs it). */
export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
/** Browser tests run where Chromium is, and always in CI (where a missing Chromium must fail, not skip). */
export const RUN_BROWSER_TESTS = Boolean(CHROMIUM) || Boolean(process.env.CI);
/** The repository root (screenshots go to its docs/). */
export const ROOT = join(import.meta.dirname, '..', '..', '..');

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Headless Chromium with the flags a container needs. */
export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });

/** Serious and critical accessibility violations axe-core finds on the page, as `rule: target` lines. */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern (the page itself stays under it).
  await page.evaluate(AXE_SOURCE);
  return page.evaluate<string[]>(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
    .then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
}

/** Record the page's CSP refusals and uncaught errors into `problems` (tests expect it empty at the end). */
export function watchPage(page: Page, problems: string[]): Page {
  page.on('console', (message) => /Content Security Policy|Refused to/i.test(message.text()) && problems.push(message.text()));
  page.on('pageerror', (err) => problems.push(String(err)));
  return page;
}

/** A new page in a fresh context of the browser, watched for problems. */
export async function newWatchedPage(browser: Browser, problems: string[], viewport = { width: 1280, height: 900 }): Promise<Page> {
  return watchPage(await (await browser.newContext({ viewport })).newPage(), problems);
}

/** Sign in with e-mail and password on the dashboard at `url`. */
export async function signInWithPassword(page: Page, url: string, credentials: { email: string; password: string }): Promise<void> {
  await page.goto(url);
  await page.getByLabel('E-mail').fill(credentials.email);
  await page.getByLabel('Password').fill(credentials.password);
  await page.keyboard.press('Enter');
}
