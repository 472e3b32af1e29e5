import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers.ts';
import { axeViolations, CHROMIUM, launchChromium, ROOT, RUN_BROWSER_TESTS, signInWithPassword, watchPage } from './browser-kit.ts';

/**
 * The dashboard's evaluation screen (issue 38) in a real browser (Debian's Chromium driven by Playwright): a
 * collection's golden sets, a run started from the page, the metric history as an SVG chart, and the worst queries
 * of a run with what came back. Checked with axe-core (no serious or critical violation).
 *
 * Skipped when Chromium is missing, except in CI. DOSSIER_SCREENSHOTS=1 writes docs/dashboard-evaluation.png.
 */

const RUN = RUN_BROWSER_TESTS;

let t: TestServer;
let browser: Browser;
let page: Page;
let cid: string;
const problems: string[] = [];

describe.runIf(RUN)('the evaluation screen in a browser', () => {
  beforeAll(async () => {
    if (!CHROMIUM) throw new Error('CI: /usr/bin/chromium is missing (.ci/run installs it)');
    execFileSync(process.execPath, [join(ROOT, 'packages', 'web', 'scripts', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
    t = await startTestServer();
    // The dashboard opens in the test sandbox: the collection and its set are made with the test key.
    cid = (await t.createCollection({ name: 'Harbour', queryExpansion: 'none' }, t.testKey)).id;
    const auth = { auth: t.testKey };
    await t.ingest(cid, 'tides.md', '# Tides\n\nTides decide when large ships may enter the harbour.\n', auth);
    await t.ingest(cid, 'glaciers.md', '# Glaciers\n\nGlaciers carve valleys slowly over thousands of years.\n', auth);
    const set = await t.request('POST', `/v1/collections/${cid}/golden-sets`, {
      auth: t.testKey,
      json: {
        name: 'harbour questions',
        matchBy: 'filename',
        queries: [
          { id: 'ships', query: 'when may ships enter the harbour', relevant: [{ target: 'tides' }] },
          { id: 'valleys', query: 'glaciers carve valleys', relevant: [{ target: 'tides' }] },
        ],
      },
    });
    expect(set.status).toBe(201);
    expect((await t.request('POST', `/v1/collections/${cid}/evaluations`, { auth: t.testKey, json: { setId: set.body.id } })).status).toBe(201);
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    watchPage(page, problems);
    await signInWithPassword(page, t.url, t);
    await page.getByRole('heading', { name: 'Collections' }).waitFor();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows the golden sets, the metric history chart and the worst queries with what came back', async () => {
    await page.getByRole('link', { name: 'Harbour' }).click();
    await page.getByRole('link', { name: 'Evaluation' }).click();
    await page.getByRole('heading', { name: 'Evaluation' }).waitFor();
    await page.getByRole('cell', { name: 'harbour questions' }).waitFor();
    const chart = page.getByRole('img', { name: /Metric history of 1 run; latest nDCG@10 0\.500/ });
    await chart.waitFor();
    expect(await page.locator('[data-testid=metric-chart] polyline').count()).toBe(3);
    const worst = page.getByTestId('worst-queries');
    const row = worst.getByRole('row').filter({ hasText: 'glaciers carve valleys' });
    expect(await row.textContent()).toMatch(/0\.000.*tides \(missed\).*glaciers/);
    expect(await worst.getByRole('row').filter({ hasText: 'when may ships enter' }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    if (process.env.DOSSIER_SCREENSHOTS) {
      mkdirSync(join(ROOT, 'docs'), { recursive: true });
      await page.screenshot({ path: join(ROOT, 'docs', 'dashboard-evaluation.png'), fullPage: false });
    }
  });

  it('runs an evaluation from the page with another k, adding a point to the chart and a row to the runs', async () => {
    await page.getByLabel('Results per query (k)').fill('1');
    await page.getByRole('button', { name: 'Run evaluation' }).click();
    await page.getByRole('img', { name: /Metric history of 2 runs/ }).waitFor();
    expect(await page.locator('[data-testid=metric-chart] [data-series=ndcg10] circle').count()).toBe(2);
    await page.getByRole('cell', { name: /^expansion none, rerank (on|off), k 1$/ }).waitFor();
    const runs = (await t.request('GET', `/v1/collections/${cid}/evaluations`, { auth: t.testKey })).body as { settings: { limit: number } }[];
    expect(runs.map((r) => r.settings.limit)).toEqual([1, 10]);
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });
});
