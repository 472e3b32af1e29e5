/**
 * The dashboard's figures (issue 34), on this machine, in Debian's Chromium:
 *   - first load: gzip bytes of the JS and CSS the page loads (what the server sends to a browser that takes gzip);
 *   - time to interactive: navigation start to the sign-in form accepting input, cold cache, median of 5;
 *   - live status latency: the server's `ready` event (seen by an API client on the same stream) to the row changing
 *     in the page, for 10 small documents;
 *   - the document table at 10,000 documents: first rows shown, rows in the DOM, frame times while scrolling a page
 *     of 500 to its end, and the time a status filter and a file-name filter take to show their rows.
 *
 *     node --import tsx bench/dashboard.ts
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { frameTimes, median, ROOT, signedInPage, withDashboard } from './dashboard-session.ts';

const DIST = join(ROOT, 'packages', 'web', 'dist');

/** Gzip bytes of the page's scripts and styles, as the server sends them. */
function firstLoadBytes(): { js: number; css: number; html: number } {
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  const assets = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((m) => m[1]!);
  const gz = (file: string) => statSync(join(DIST, `${file}.gz`)).size;
  return {
    js: assets.filter((a) => a.endsWith('.js')).reduce((n, a) => n + gz(a), 0),
    css: assets.filter((a) => a.endsWith('.css')).reduce((n, a) => n + gz(a), 0),
    html: gz('index.html'),
  };
}

/** The `ready` times of documents on the collection's stream, as an API client sees them. */
async function followReady(url: string, key: string, seen: Map<string, number>, signal: AbortSignal): Promise<void> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` }, signal });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read().catch(() => ({ value: '', done: true }));
    if (done) return;
    for (const line of value.split('\n').filter((l) => l.startsWith('data:'))) {
      const e = JSON.parse(line.slice(5)) as { documentId: string; status: string };
      if (e.status === 'ready') seen.set(e.documentId, Date.now());
    }
  }
}

/**
 * Upload `count` tiny Markdown documents, 100 per batch request, and wait for the pipeline to finish them. Each batch is
 * tagged `group-<0…9>` (1,000 documents a tag at 10,000), and the batch from 4,200 also `rare` (100 documents).
 */
async function fillCollection(api: (path: string, init?: RequestInit) => Promise<Response>, collectionId: string, count: number): Promise<void> {
  for (let start = 0; start < count; start += 100) {
    const form = new FormData();
    for (let i = start; i < Math.min(count, start + 100); i++)
      form.append('file', new Blob([`# Doc ${i}\n\nItem ${i} of the load.\n`]), `doc-${String(i).padStart(5, '0')}.md`);
    form.append('tags', JSON.stringify([`group-${(start / 100) % 10}`, ...(start === 4200 ? ['rare'] : [])]));
    const res = await api(`/v1/collections/${collectionId}/documents/batch`, { method: 'POST', body: form });
    if (res.status !== 202) throw new Error(`batch upload: ${res.status} ${await res.text()}`);
  }
}

/** Frame times (ms) while the table scrolls to the end of its page, 1,500 px a frame. */
function scrollFrames(page: Page): Promise<number[]> {
  return frameTimes(
    page,
    '.table-scroll',
    `(el) => {
    if (el.scrollTop + el.clientHeight >= el.scrollHeight - 1) return false;
    el.scrollTop += 1500;
    return true;
  }`,
  );
}

/** How long an action takes to show its result in the page. */
async function timed(action: () => Promise<void>, shown: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await action();
  await shown();
  return performance.now() - started;
}

async function tableFigures(page: Page, url: string): Promise<void> {
  const shown = await timed(
    () => page.goto(url).then(() => {}),
    () => page.getByRole('row').filter({ hasText: 'doc-' }).first().waitFor(),
  );
  await page.getByRole('heading', { name: 'Documents (10000)' }).waitFor();
  const rowsInDom = await page.locator('tbody tr').count();
  const frames = await scrollFrames(page);
  const last = await page
    .getByRole('row')
    .filter({ hasText: /doc-\d+\.md/ })
    .last()
    .textContent();
  console.log(
    `10,000 documents: first rows ${shown.toFixed(0)} ms after navigation; ${rowsInDom} rows in the DOM of a 500-row page; scroll to its end: ${frames.length} frames, median ${median(frames).toFixed(1)} ms, max ${Math.max(...frames).toFixed(1)} ms (last row ${last?.slice(0, 14)})`,
  );
  const byStatus = await timed(
    () =>
      page
        .getByLabel('Status')
        .selectOption('error')
        .then(() => {}),
    () => page.getByRole('heading', { name: 'Documents (0)' }).waitFor(),
  );
  const back = await timed(
    () =>
      page
        .getByLabel('Status')
        .selectOption('ready')
        .then(() => {}),
    () => page.getByRole('heading', { name: 'Documents (10000)' }).waitFor(),
  );
  const byName = await timed(
    () => page.getByLabel('File name').fill('doc-04242'),
    () => page.getByRole('row').filter({ hasText: 'doc-04242.md' }).first().waitFor(),
  );
  console.log(
    `10,000 documents: status filter (error, 0 rows) ${byStatus.toFixed(0)} ms, (ready, 10,000) ${back.toFixed(0)} ms; file-name filter ${byName.toFixed(0)} ms`,
  );
  await page.getByLabel('File name').fill('');
  await page.getByRole('heading', { name: 'Documents (10000)' }).waitFor();
  const tag = page.getByRole('combobox', { name: /^Tag/ });
  const rare = await timed(
    () => tag.selectOption('rare').then(() => {}),
    () => page.getByRole('heading', { name: 'Documents (100)' }).waitFor(),
  );
  const group = await timed(
    () => tag.selectOption('group-3').then(() => {}),
    () => page.getByRole('heading', { name: 'Documents (1000)' }).waitFor(),
  );
  console.log(`10,000 documents: tag filter (rare, 100 rows) ${rare.toFixed(0)} ms, (group-3, 1,000 rows) ${group.toFixed(0)} ms`);
}

/** The list route's own time for a tag filter over 10,000 documents (median of 10 requests of a first page of 500). */
async function tagListFigures(api: (path: string, init?: RequestInit) => Promise<Response>, collectionId: string): Promise<void> {
  const times = async (query: string) => {
    const all: number[] = [];
    for (let i = 0; i < 10; i++) {
      const started = performance.now();
      const res = await api(`/v1/collections/${collectionId}/documents?limit=500&${query}`);
      await res.json();
      all.push(performance.now() - started);
    }
    return median(all).toFixed(1);
  };
  console.log(
    `GET …/documents at 10,000: no filter ${await times('')} ms, tags=rare ${await times('tags=rare')} ms, tags=group-3 ${await times('tags=group-3')} ms, anyTags=rare&anyTags=group-3 ${await times('anyTags=rare&anyTags=group-3')} ms (median of 10)`,
  );
}

async function main(): Promise<void> {
  await withDashboard('dashboard', async (session) => {
    const { server, browser, bootstrap: b } = session;
    const bytes = firstLoadBytes();
    console.log(`first load (gzip): JS ${(bytes.js / 1024).toFixed(1)} KB, CSS ${(bytes.css / 1024).toFixed(1)} KB, HTML ${(bytes.html / 1024).toFixed(1)} KB`);
    const tti: number[] = [];
    for (let i = 0; i < 6; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(server.url, { waitUntil: 'commit' });
      await page.getByLabel('E-mail').waitFor();
      const ms = await page.evaluate<number>('performance.now()');
      if (i > 0) tti.push(ms); // the first run warms the server's file cache
      await context.close();
    }
    console.log(`time to interactive (sign-in form), cold browser cache: median ${median(tti).toFixed(0)} ms (${tti.map((x) => x.toFixed(0)).join(', ')})`);

    const page = await signedInPage(session);
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${server.url}${path}`, { ...init, headers: { authorization: `Bearer ${b.testKey}`, ...(init.headers as Record<string, string>) } });
    const collection = (await (
      await api('/v1/collections', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ projectId: b.projectId, name: 'bench' }),
      })
    ).json()) as { id: string };
    await page.goto(`${server.url}/collections/${collection.id}`);
    await page.getByRole('heading', { name: /Documents/ }).waitFor();
    // Each row's change to `ready`, stamped in the page.
    await page.evaluate(
      `window.readyAt = {}; new MutationObserver(() => { for (const row of document.querySelectorAll('tr[data-status="ready"]')) { const name = row.querySelector('a')?.textContent; if (name && !window.readyAt[name]) window.readyAt[name] = Date.now(); } }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true })`,
    );
    const seen = new Map<string, number>();
    const stop = new AbortController();
    void followReady(`${server.url}/v1/collections/${collection.id}/documents/events`, b.testKey, seen, stop.signal);
    const names = new Map<string, string>();
    for (let i = 0; i < 10; i++) {
      const form = new FormData();
      form.append('file', new Blob([`# Note ${i}\n\n## Part\n\nSome words about item ${i}.\n`]), `note-${i}.md`);
      const doc = (await (await api(`/v1/collections/${collection.id}/documents`, { method: 'POST', body: form })).json()) as { id: string };
      names.set(doc.id, `note-${i}.md`);
      await api(`/v1/documents/${doc.id}/wait`);
      await page
        .getByRole('row')
        .filter({ hasText: `note-${i}.md` })
        .filter({ hasText: 'ready' })
        .waitFor();
    }
    stop.abort();
    const readyAt = await page.evaluate<Record<string, number>>('window.readyAt');
    const latency = [...names].map(([id, name]) => (readyAt[name] ?? Number.NaN) - (seen.get(id) ?? Number.NaN));
    console.log(
      `live status latency, server ready event → row shows ready: median ${median(latency)} ms, max ${Math.max(...latency)} ms (${latency.join(', ')})`,
    );
    const big = (await (
      await api('/v1/collections', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ projectId: b.projectId, name: 'ten thousand' }),
      })
    ).json()) as { id: string };
    const loaded = performance.now();
    await fillCollection(api, big.id, 10_000);
    await server.dossier.idle();
    console.log(`10,000 documents uploaded and processed in ${((performance.now() - loaded) / 1000).toFixed(1)} s`);
    await tableFigures(page, `${server.url}/collections/${big.id}`);
    await tagListFigures(api, big.id);
  });
}

await main();
