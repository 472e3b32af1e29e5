/**
 * The dashboard part 2's figures (issue 37), on this machine, in Debian's Chromium, against a real server:
 *   - the claim map at 20,000 claims: navigation → "20000 claims" shown, the first draw's duration, and the draw
 *     durations of 20 pans (arrow keys) and 10 zooms (wheel);
 *   - the contradiction list and the duplicate groups at 1,000 items: navigation → the first page shown, its items
 *     in the DOM, and the time a severity filter takes to show its result.
 * The three list/map answers are synthetic (Playwright answers those API requests in the browser, with realistic
 * shapes): building 20,000 real claims needs a model for each document. The page, its rendering and the rest of the
 * API are the real ones. Figures: bench/RESULTS.md, "Issue 37".
 *
 *     node --import tsx bench/dashboard-review.ts
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { frameTimes, median, ROOT, signedInPage, withDashboard } from './dashboard-session.ts';

const uuid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

/** 20,000 claims in 40 documents, clustered around one centre per document. */
function mapAnswer(count: number): string {
  const claims = Array.from({ length: count }, (_, i) => {
    const doc = i % 40;
    const angle = (i * 2.399) % (2 * Math.PI);
    const r = ((i * 7919) % 1000) / 1000;
    return {
      id: uuid(i),
      text: `Claim ${i} of document ${doc}`,
      sourceText: null,
      documentId: uuid(100_000 + doc),
      documentName: `doc-${doc}.md`,
      sectionId: uuid(200_000 + doc),
      sectionTitle: 'Section',
      importance: 1 + (i % 5),
      x: (doc % 8) * 10 + r * 4 * Math.cos(angle),
      y: Math.floor(doc / 8) * 10 + r * 4 * Math.sin(angle),
    };
  });
  return `data: ${JSON.stringify({ type: 'progress', pct: 50 })}\n\ndata: ${JSON.stringify({ type: 'done', total: count, claims })}\n\n`;
}

function contradictionsAnswer(total: number, severity: string | null, offset: number, limit: number): string {
  const severities = ['low', 'medium', 'high'] as const;
  const all = Array.from({ length: total }, (_, i) => ({
    id: uuid(i),
    severity: severities[i % 3],
    status: 'active',
    explanation: `Explanation ${i}`,
    clusterTopicSummary: `Topic ${i}`,
    suggestedInstruction: null,
    createdAt: new Date().toISOString(),
    claims: [0, 1].map((k) => ({
      claimId: uuid(10_000 + i * 2 + k),
      documentId: uuid(k),
      documentName: `doc-${(i + k) % 50}.md`,
      sectionId: uuid(k),
      sectionTitle: 'S',
      sourceText: null,
      text: `Claim ${k}`,
    })),
  }));
  const items = severity ? all.filter((c) => c.severity === severity) : all;
  return JSON.stringify({ items: items.slice(offset, offset + limit), total: items.length });
}

function duplicatesAnswer(total: number, offset: number, limit: number): string {
  const items = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, k) => {
    const i = offset + k;
    const members = [0, 1, 2].map((m) => ({
      documentId: uuid(i * 3 + m),
      filename: `copy-${i}-${m}.md`,
      relationship: m === 0 ? 'canonical' : 'near_duplicate',
      coverageToCanonical: m ? 0.9 : null,
      coverageFromCanonical: m ? 0.85 : null,
    }));
    return { id: uuid(50_000 + i), canonicalDocumentId: uuid(i * 3), detectedAt: new Date().toISOString(), members };
  });
  return JSON.stringify({ items, total });
}

async function answerSynthetic(page: Page): Promise<void> {
  await page.route('**/claims/map', (route) => route.fulfill({ status: 200, contentType: 'text/event-stream', body: mapAnswer(20_000) }));
  await page.route('**/v1/collections/*/contradictions?*', (route) => {
    const q = new URL(route.request().url()).searchParams;
    const body = contradictionsAnswer(1000, q.get('severity'), Number(q.get('offset') ?? 0), Number(q.get('limit') ?? 20));
    return route.fulfill({ status: 200, contentType: 'application/json', body });
  });
  await page.route('**/v1/collections/*/duplicates?*', (route) => {
    const q = new URL(route.request().url()).searchParams;
    return route.fulfill({
      status: 200,
      contentType: 'application/json',
      body: duplicatesAnswer(1000, Number(q.get('offset') ?? 0), Number(q.get('limit') ?? 50)),
    });
  });
}

async function timed(action: () => Promise<unknown>, shown: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await action();
  await shown();
  return performance.now() - started;
}

const drawTimes = (page: Page) => page.evaluate<number[]>(`performance.getEntriesByName('claim-map-draw').map((e) => e.duration)`);

async function claimMapFigures(page: Page, url: string): Promise<void> {
  const shown = await timed(
    () => page.goto(url),
    () => page.getByRole('status').filter({ hasText: '20000 claims' }).waitFor({ timeout: 60_000 }),
  );
  await page.waitForTimeout(200);
  const first = await drawTimes(page);
  if (process.env.DOSSIER_SCREENSHOTS) await page.screenshot({ path: join(ROOT, 'docs', 'dashboard-claim-map-20k.png') });
  const canvas = page.locator('canvas');
  await canvas.focus();
  await page.evaluate(`performance.clearMeasures('claim-map-draw')`);
  for (let i = 0; i < 20; i++) {
    await page.keyboard.press(i % 2 ? 'ArrowLeft' : 'ArrowUp');
    await page.waitForTimeout(30);
  }
  const pans = await drawTimes(page);
  await page.evaluate(`performance.clearMeasures('claim-map-draw')`);
  const box = await canvas.boundingBox();
  await page.mouse.move((box?.x ?? 0) + 300, (box?.y ?? 0) + 200);
  for (let i = 0; i < 10; i++) {
    await page.mouse.wheel(0, -100);
    await page.waitForTimeout(30);
  }
  const zooms = await drawTimes(page);
  // Frame times with a pan every frame: the draw plus Chromium's own raster and compositing of the canvas.
  const frames = await frameTimes(
    page,
    'canvas',
    `(canvas, frames) => {
    if (frames.length > 40) return false;
    canvas.dispatchEvent(new KeyboardEvent('keydown', { key: frames.length % 2 ? 'ArrowRight' : 'ArrowDown', bubbles: true }));
    return true;
  }`,
  );
  console.log(
    `claim map, 20,000 claims: navigation → shown ${shown.toFixed(0)} ms; first draw ${first.map((d) => d.toFixed(1)).join(' / ')} ms; pans: ${pans.length} draws, median ${median(pans).toFixed(1)} ms, max ${Math.max(...pans).toFixed(1)} ms; zooms: ${zooms.length} draws, median ${median(zooms).toFixed(1)} ms, max ${Math.max(...zooms).toFixed(1)} ms; a pan every frame: ${frames.length} frames, median ${median(frames).toFixed(1)} ms, max ${Math.max(...frames).toFixed(1)} ms`,
  );
}

async function listFigures(page: Page, base: string): Promise<void> {
  const contradictions = await timed(
    () => page.goto(`${base}/contradictions`),
    () => page.getByRole('status').filter({ hasText: '1000 contradictions' }).waitFor(),
  );
  const items = await page.locator('.contradictions li').count();
  const later = await timed(
    () => page.getByRole('button', { name: 'Next contradictions' }).click(),
    () => page.getByRole('status').filter({ hasText: '51–100 shown' }).waitFor(),
  );
  const high = await timed(
    () => page.getByLabel('Severity').selectOption('high'),
    () => page.getByRole('status').filter({ hasText: '333 contradictions' }).waitFor(),
  );
  console.log(
    `contradictions, 1,000: navigation → list shown ${contradictions.toFixed(0)} ms (${items} items in the DOM, a page of 50); next page ${later.toFixed(0)} ms; severity filter → 333 shown ${high.toFixed(0)} ms`,
  );
  const duplicates = await timed(
    () => page.goto(`${base}/duplicates`),
    () => page.getByRole('status').filter({ hasText: '1000 groups, 1–50 shown' }).waitFor(),
  );
  const groups = await page.locator('.groups > li').count();
  const next = await timed(
    () => page.getByRole('button', { name: 'Next groups' }).click(),
    () => page.getByRole('status').filter({ hasText: '51–100 shown' }).waitFor(),
  );
  console.log(
    `duplicate groups, 1,000: navigation → first page shown ${duplicates.toFixed(0)} ms (${groups} groups of 3 in the DOM); next page ${next.toFixed(0)} ms`,
  );
}

async function main(): Promise<void> {
  await withDashboard('dashboard-review', async (session) => {
    const { server, bootstrap: b } = session;
    const page = await signedInPage(session, { width: 1400, height: 900 });
    const created = await fetch(`${server.url}/v1/collections`, {
      method: 'POST',
      headers: { authorization: `Bearer ${b.testKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench' }),
    });
    const collection = (await created.json()) as { id: string };
    await answerSynthetic(page);
    const base = `${server.url}/collections/${collection.id}`;
    for (let run = 0; run < Number(process.env.RUNS ?? 2); run++) {
      await claimMapFigures(page, `${base}/claims`);
      await listFigures(page, base);
    }
  });
}

await main();
