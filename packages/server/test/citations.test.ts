import { dossierContext, ScriptedModel, scriptedResolver } from '@dossier/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePptx, makeXlsx } from '../../adapters/test/converters/office-helpers.ts';
import { column, makePdf } from '../../adapters/test/converters/pdf-helpers.ts';
import { expectError, startTestServer, type TestServer } from './helpers.ts';

/** Issue 39: results carry where their passage is (span, pages, regions), and a PDF's pages are served as images. */

const CLAUSE = ['The tenant shall pay the rent of the flat on the first', 'day of every month by bank transfer to the landlord.'];
const LATER = ['A deposit of two months of rent secures the lease and', 'is returned within thirty days after the keys come back.'];

/** Two letter pages: a title and a clause on page 1, a clause low on page 2. */
const leasePdf = (): Uint8Array =>
  makePdf([
    { texts: [{ text: 'Lease Agreement', x: 72, y: 740, size: 18, bold: true }, ...column(CLAUSE, 72, 700)] },
    { texts: [{ text: 'Deposit', x: 72, y: 300, size: 14, bold: true }, ...column(LATER, 72, 270)] },
  ]);

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

let t: TestServer;
let cid: string;
let pdfId: string;
let mdId: string;
const markdown: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestServer();
  cid = (await t.createCollection({ name: 'Leases' })).id;
  pdfId = (await t.ingest(cid, 'lease.pdf', leasePdf())).id;
  mdId = (await t.ingest(cid, 'notes.md', '# Notes\n\nThe deposit account is kept at the cooperative bank.\n')).id;
  for (const id of [pdfId, mdId]) markdown[id] = (await t.request('GET', `/v1/documents/${id}/markdown`)).body as string;
});
afterAll(async () => {
  await t?.close();
});

type Located = {
  span?: { start: number; end: number };
  pages?: number[];
  regions?: { page: number; box: number[] }[];
  cells?: { sheet: string; range: string }[];
};

describe('where a result is (issue 39)', () => {
  it('gives a PDF hit its exact span in the Markdown, its page and boxes on that page', async () => {
    const res = await t.request('POST', `/v1/collections/${cid}/query`, { json: { q: 'deposit returned thirty days', limit: 5 } });
    expect(res.status).toBe(200);
    const hit = (res.body as (Located & { chunk: { content: string }; document: { id: string } })[]).find((h) => h.document.id === pdfId);
    expect(hit?.span).toBeDefined();
    expect(markdown[pdfId]?.slice(hit?.span?.start, hit?.span?.end)).toBe(hit?.chunk.content);
    expect(hit?.pages).toContain(2);
    const onTwo = hit?.regions?.filter((r) => r.page === 2) ?? [];
    expect(onTwo.length).toBeGreaterThan(0);
    for (const { box } of onTwo) {
      expect(box.every((v) => v >= 0 && v <= 1)).toBe(true);
      expect(box[3]).toBeGreaterThan(0.55); // the clause sits below the middle of page 2 (y 270-300 pt of 792)
    }
  });

  it('gives a Markdown hit its span and no pages', async () => {
    const res = await t.request('POST', `/v1/collections/${cid}/query`, { json: { q: 'cooperative bank', limit: 5 } });
    const hit = (res.body as (Located & { chunk: { content: string }; document: { id: string } })[]).find((h) => h.document.id === mdId);
    expect(markdown[mdId]?.slice(hit?.span?.start, hit?.span?.end)).toBe(hit?.chunk.content);
    expect(hit?.pages).toBeUndefined();
    expect(hit?.regions).toBeUndefined();
  });

  it('gives a slide deck hit its slide as its page, without boxes', async () => {
    const deck = makePptx([
      { title: 'Plan', bullets: ['Grow revenue'] },
      { title: 'Risks', bullets: ['The zeppelin hangar lease expires in spring'] },
    ]);
    const doc = await t.ingest(cid, 'plan.pptx', new Uint8Array(deck));
    const res = await t.request('POST', `/v1/collections/${cid}/query`, { json: { q: 'zeppelin hangar', limit: 3 } });
    const hit = (res.body as (Located & { document: { id: string } })[]).find((h) => h.document.id === doc.id);
    expect(hit?.pages).toEqual([2]);
    expect(hit?.regions).toBeUndefined();
    expectError(await t.request('GET', `/v1/documents/${doc.id}/pages/2/image`), 422, /PDFs only/);
  });

  it('gives a spreadsheet hit its sheet and cell range, and its section the whole sheet’s', async () => {
    const row = (r: number, cells: string[]) =>
      `<row r="${r}">${cells.map((v, i) => `<c r="${String.fromCharCode(66 + i)}${r}" t="inlineStr"><is><t>${v}</t></is></c>`).join('')}</row>`;
    const fleet = [row(2, ['Craft', 'Hangar', 'Status']), row(3, ['Zeppelin LZ 9', 'North', 'grounded']), row(5, ['Balloon 4', 'South', 'flying'])].join('');
    const budget = [row(1, ['Line', 'Amount']), row(2, ['Helium refill', '1200'])].join('');
    const doc = await t.ingest(
      cid,
      'fleet.xlsx',
      new Uint8Array(
        makeXlsx([
          ['Budget', budget],
          ['Fleet', fleet],
        ]),
      ),
    );
    const res = await t.request('POST', `/v1/collections/${cid}/query`, { json: { q: 'zeppelin grounded hangar', limit: 5 } });
    const hit = (res.body as (Located & { chunk: { content: string }; document: { id: string } })[]).find(
      (h) => h.document.id === doc.id && h.chunk.content.includes('Zeppelin'),
    );
    expect(hit?.cells).toEqual([{ sheet: 'Fleet', range: 'B2:D5' }]);
    expect(hit?.pages).toBeUndefined();
    expect(hit?.regions).toBeUndefined();
    const text = (await t.request('GET', `/v1/documents/${doc.id}/markdown`)).body as string;
    expect(text.slice(hit?.span?.start, hit?.span?.end)).toBe(hit?.chunk.content);
    const scan = await t.request('POST', `/v1/collections/${cid}/sections/scan`, { json: { query: 'Budget' } });
    const budgetSection = (scan.body as { results: (Located & { section: { id: string; title: string } })[] }).results.find(
      (r) => r.section.title === 'Budget',
    );
    expect(budgetSection?.cells).toEqual([{ sheet: 'Budget', range: 'B1:C2' }]);
    expect((await t.request('GET', `/v1/sections/${budgetSection?.section.id}`)).body.cells).toEqual([{ sheet: 'Budget', range: 'B1:C2' }]);
    expectError(await t.request('GET', `/v1/documents/${doc.id}/pages/1/image`), 422, /PDFs only/);
  });

  it('gives scanned sections and a section’s chunks their location', async () => {
    const scan = await t.request('POST', `/v1/collections/${cid}/sections/scan`, { json: { query: 'Deposit' } });
    const section = (scan.body as { results: (Located & { section: { id: string; title: string } })[] }).results.find((r) => r.section.title === 'Deposit');
    expect(section?.pages).toEqual([2]);
    expect(section?.regions?.length).toBeGreaterThan(0);
    const chunks = await t.request('GET', `/v1/sections/${section?.section.id}/chunks`);
    expect((chunks.body as Located[])[0]?.pages).toEqual([2]);
    expect((chunks.body as Located[])[0]?.regions?.every((r) => r.page === 2)).toBe(true);
  });

  it('gives a section read on its own its pages and boxes', async () => {
    const scan = await t.request('POST', `/v1/collections/${cid}/sections/scan`, { json: { query: 'Deposit' } });
    const found = (scan.body as { results: (Located & { section: { id: string; title: string } })[] }).results.find((r) => r.section.title === 'Deposit');
    const res = await t.request('GET', `/v1/sections/${found?.section.id}`);
    expect(res.status).toBe(200);
    const section = res.body as Located & { content: string; pageStart: number; pageEnd: number; markdownOffsetStart: number; markdownOffsetEnd: number };
    expect(section).toMatchObject({ pageStart: 2, pageEnd: 2, pages: [2], markdownOffsetStart: found?.span?.start, markdownOffsetEnd: found?.span?.end });
    expect(section.span).toBeUndefined(); // markdownOffsetStart/End are its span
    expect(markdown[pdfId]?.slice(section.markdownOffsetStart, section.markdownOffsetEnd)).toBe(section.content);
    expect(section.regions?.length).toBeGreaterThan(0);
    expect(section.regions).toEqual(found?.regions);
    expect(section.regions?.every((r) => r.page === 2 && (r.box[1] ?? 0) > 0.55)).toBe(true);
    const mdSection = (await t.request('POST', `/v1/collections/${cid}/sections/scan`, { json: { query: 'Notes' } })).body as {
      results: { section: { id: string }; document: { id: string } }[];
    };
    const notes = await t.request('GET', `/v1/sections/${mdSection.results.find((r) => r.document.id === mdId)?.section.id}`);
    expect(notes.body.content).toContain('cooperative bank');
    expect(notes.body.pages).toBeUndefined();
    expect(notes.body.regions).toBeUndefined();
  });

  it('copies the location into research sources', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: 'search', arguments: { query: 'deposit thirty days' } }] }, { text: ['Within thirty days [S1].'] }]);
    dossierContext(t.server.dossier).models = scriptedResolver(model);
    const res = await t.request('POST', `/v1/collections/${cid}/research/sync`, { json: { q: 'When is the deposit returned?', depth: 'quick' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [source] = (res.body as { sources: (Located & { documentId: string })[] }).sources;
    expect(source?.documentId).toBe(pdfId);
    expect(source?.pages).toContain(2);
    expect(source?.regions?.some((r) => r.page === 2)).toBe(true);
    expect(source?.span?.end).toBeGreaterThan(source?.span?.start ?? Number.POSITIVE_INFINITY);
    const saved = await t.request('GET', `/v1/collections/${cid}/research/${(res.body as { sessionId: string }).sessionId}`);
    expect((saved.body as { sources: Located[] }).sources[0]).toMatchObject({ span: source?.span, pages: source?.pages, regions: source?.regions });
  });

  it('copies the location into a hosted agent run’s sources, as answered and as stored', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'search_collection', arguments: { collectionId: cid, query: 'deposit thirty days' } }] },
      { text: ['Within thirty days [S1].'] },
    ]);
    dossierContext(t.server.dossier).models = scriptedResolver(model);
    const token = (await t.request('POST', '/auth/login', { auth: null, json: { email: t.email, password: t.password } })).body.token as string;
    const base = `/v1/orgs/${t.orgId}/projects/${t.projectId}/agents`;
    const agent = { slug: 'lease-reader', name: 'Lease reader', systemPrompt: 'You answer from the leases.', model: 'scripted', allowedCollectionIds: [cid] };
    expect((await t.request('POST', base, { auth: token, json: agent })).status).toBe(201);
    const res = await t.request('POST', `${base}/lease-reader/invoke/sync`, { auth: token, json: { query: 'When is the deposit returned?' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [source] = (res.body as { sources: (Located & { documentId: string; marker: string })[] }).sources;
    expect(source).toMatchObject({ documentId: pdfId, marker: 'S1' });
    expect(source?.pages).toContain(2);
    expect(source?.regions?.some((r) => r.page === 2 && r.box.every((v) => v >= 0 && v <= 1))).toBe(true);
    expect(markdown[pdfId]?.slice(source?.span?.start, source?.span?.end)).toContain('deposit');
    const run = await t.request('GET', `${base}/lease-reader/runs/${(res.body as { runId: string }).runId}`, { auth: token });
    expect((run.body as { sources: Located[] }).sources[0]).toMatchObject({ span: source?.span, pages: source?.pages, regions: source?.regions });
  });
});

describe('GET /v1/documents/:id/pages/:page/image', () => {
  const image = (id: string, page: string | number, query = '', auth?: string | null) =>
    fetch(`${t.url}/v1/documents/${id}/pages/${page}/image${query}`, { headers: auth === null ? {} : { authorization: `Bearer ${auth ?? t.liveKey}` } });

  it('draws a page as PNG, bounded in width, and serves it again from the cache', async () => {
    const res = await image(pdfId, 2, '?width=500');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('cache-control')).toMatch(/^private/);
    const png = new Uint8Array(await res.arrayBuffer());
    expect([...png.subarray(0, 8)]).toEqual(PNG);
    const width = Buffer.from(png).readUInt32BE(16);
    expect(width).toBeLessThanOrEqual(800);
    expect(width).toBeGreaterThan(400);
    const again = new Uint8Array(await (await image(pdfId, 2, '?width=500')).arrayBuffer());
    expect(Buffer.from(again).equals(Buffer.from(png))).toBe(true);
  });

  it('answers 404 past the last page, 400 for a malformed page or width, 422 for a document without pages', async () => {
    expect((await image(pdfId, 3)).status).toBe(404);
    expect((await image(pdfId, 'first')).status).toBe(400);
    expect((await image(pdfId, 0)).status).toBe(400);
    expect((await image(pdfId, 1, '?width=99999')).status).toBe(400);
    expectError(await t.request('GET', `/v1/documents/${mdId}/pages/1/image`), 422, /PDFs only/);
    expectError(await t.request('GET', `/v1/documents/${pdfId}/pages/9/image`), 404, /Page 9/);
  });

  it('draws the new content once a document’s file is replaced in place (the cached pages of the old one are dropped)', async () => {
    const send = async (pdf: Uint8Array) => {
      const form = new FormData();
      form.append('file', new Blob([Buffer.from(pdf)], { type: 'application/pdf' }), 'policy.pdf');
      form.append('sourcePaths', JSON.stringify(['leases/policy.pdf']));
      const res = await t.request('POST', `/v1/collections/${cid}/documents/batch`, { body: form });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      return (await t.waitDone((res.body as { documents: { id: string }[] }).documents[0]?.id ?? '')).id;
    };
    const id = await send(leasePdf());
    const before = Buffer.from(await (await image(id, 1, '?width=400')).arrayBuffer());
    expect((await image(id, 2, '?width=400')).status).toBe(200);
    const again = await send(makePdf([{ texts: [{ text: 'Policy withdrawn', x: 200, y: 400, size: 30, bold: true }] }]));
    expect(again).toBe(id);
    const after = Buffer.from(await (await image(id, 1, '?width=400')).arrayBuffer());
    expect([...after.subarray(0, 8)]).toEqual(PNG);
    expect(after.equals(before)).toBe(false);
    expect((await image(id, 2, '?width=400')).status).toBe(404);
  });

  it('is refused to an anonymous caller of a private collection, and served to one of a public collection', async () => {
    expect([401, 404]).toContain((await image(pdfId, 1, '', null)).status);
    const open = (await t.createCollection({ name: 'Public leases', visibility: 'public' })).id;
    const doc = await t.ingest(open, 'lease.pdf', leasePdf());
    const res = await image(doc.id, 1, '', null);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/^public/);
  });
});
