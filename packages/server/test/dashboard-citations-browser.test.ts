import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { dossierContext, ScriptedModel, scriptedResolver } from '@dossier/core/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { column, makePdf } from '../../adapters/test/converters/pdf-helpers.ts';
import { startTestServer, type TestServer } from './helpers.ts';
import { axeViolations, CHROMIUM, launchChromium, ROOT, RUN_BROWSER_TESTS, signInWithPassword, watchPage } from './browser-kit.ts';

/**
 * Issue 39 in the dashboard, in a real browser (Debian's Chromium): a search hit and a research citation of a PDF
 * open the original page drawn by the server with the cited regions highlighted over it, beside the document's
 * Markdown with the same passage marked by its span. Checked with axe-core; skipped when Chromium is missing,
 * except in CI. DOSSIER_SCREENSHOTS=1 also writes docs/dashboard-citation.png.
 */

const RUN = RUN_BROWSER_TESTS;

const LATER = ['A deposit of two months of rent secures the lease and', 'is returned within thirty days after the keys come back.'];
/** Two letter pages: a title and a clause on page 1, the deposit clause low on page 2 (y 270-300 pt of 792). */
const leasePdf = (): Uint8Array =>
  makePdf([
    {
      texts: [
        { text: 'Lease Agreement', x: 72, y: 740, size: 18, bold: true },
        ...column(['The tenant shall pay the rent of the flat on the first', 'day of every month by bank transfer.'], 72, 700),
      ],
    },
    { texts: [{ text: 'Deposit', x: 72, y: 300, size: 14, bold: true }, ...column(LATER, 72, 270)] },
  ]);

let t: TestServer;
let browser: Browser;
let page: Page;
let collectionId: string;
const problems: string[] = [];

/** The highlight rectangles over the page image, as fractions of the image's box (what the page drew). */
async function drawnRegions(): Promise<number[][]> {
  const image = page.locator('.page-view img');
  await image.waitFor({ timeout: 30_000 });
  await page.waitForFunction(`document.querySelector('.page-view img')?.complete === true`);
  const frame = await image.boundingBox();
  type Rect = { x: number; y: number; width: number; height: number };
  const boxes = await page.locator('.page-view .region-highlight').evaluateAll((els) => els.map((el) => el.getBoundingClientRect().toJSON() as Rect));
  if (!frame) throw new Error('the page image has no box');
  return boxes.map((b) => [
    (b.x - frame.x) / frame.width,
    (b.y - frame.y) / frame.height,
    (b.x + b.width - frame.x) / frame.width,
    (b.y + b.height - frame.y) / frame.height,
  ]);
}

/** Checks that the cited page is page 2 with the deposit clause highlighted low on it, and the span marked beside it. */
async function expectDepositCited(): Promise<void> {
  await page.getByRole('heading', { name: /Cited passage \(p\. 2\)/ }).waitFor();
  const regions = await drawnRegions();
  expect(regions.length).toBeGreaterThan(0);
  for (const [x0, y0, x1, y1] of regions) {
    expect(x0).toBeGreaterThanOrEqual(0);
    expect(x1).toBeLessThanOrEqual(1.001);
    expect(x1).toBeGreaterThan(x0 as number);
    expect(y1).toBeGreaterThan(y0 as number);
    expect(y1).toBeGreaterThan(0.55); // the clause sits below the middle of page 2
  }
  expect(await page.getByRole('img', { name: 'Page 2 of lease.pdf' }).count()).toBe(1);
  expect(await page.locator('.passage-source mark.cited-span').textContent()).toContain('returned within thirty days');
  expect(await axeViolations(page)).toEqual([]);
}

describe.runIf(RUN)('citations in the dashboard (issue 39)', () => {
  beforeAll(async () => {
    if (!CHROMIUM) throw new Error('CI: /usr/bin/chromium is missing (.ci/run installs it)');
    execFileSync(process.execPath, [join(ROOT, 'packages', 'web', 'scripts', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
    t = await startTestServer({ config: { providerRetries: 0 } });
    collectionId = (await t.createCollection({ name: 'Leases' }, t.testKey)).id;
    await t.ingest(collectionId, 'lease.pdf', leasePdf(), { auth: t.testKey });
    await t.server.dossier.idle();
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    watchPage(page, problems);
    await signInWithPassword(page, t.url, t);
    await page.getByRole('link', { name: 'Leases' }).waitFor();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('opens a search hit on its original page, the hit’s regions drawn over it', async () => {
    await page.goto(`${t.url}/collections/${collectionId}/search`);
    await page.getByLabel('Query').fill('deposit returned thirty days');
    await page.keyboard.press('Enter');
    const hit = page.getByRole('link', { name: /lease\.pdf › (.+ › )?Deposit/ }); // the section path grows by its ancestors once the outline is read
    await hit.waitFor();
    expect(await page.getByText(/chunk \d+ · p\. 2/).count()).toBeGreaterThan(0);
    await hit.click();
    await expectDepositCited();
    if (process.env.DOSSIER_SCREENSHOTS) await page.screenshot({ path: join(ROOT, 'docs', 'dashboard-citation.png'), fullPage: false });
  });

  it('opens a research citation the same way, from the answer’s marker', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: 'search', arguments: { query: 'deposit thirty days' } }] }, { text: ['Within thirty days [S1].'] }]);
    dossierContext(t.server.dossier).models = scriptedResolver(model);
    await page.goto(`${t.url}/collections/${collectionId}/research`);
    await page.getByLabel('Question').fill('When is the deposit returned?');
    await page.getByRole('button', { name: 'Ask' }).click();
    const cite = page.locator('.answer').getByRole('link', { name: 'S1' });
    await cite.waitFor({ timeout: 30_000 });
    expect(await page.getByRole('list', { name: 'Sources' }).textContent()).toContain('(p. 2)');
    await cite.click();
    await expectDepositCited();
    // The link holds the citation: a reload lands on the same highlighted page.
    await page.reload();
    await expectDepositCited();
    expect(problems).toEqual([]);
  });
});
