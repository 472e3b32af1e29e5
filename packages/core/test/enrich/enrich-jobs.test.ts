import { docxWithFigureAndTable } from '../../../../test/fixtures/documents.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DossierError } from '../../src/domain/errors.ts';
import { CAPTION_POSITION } from '../../src/enrich/caption-chunks.ts';
import type { ContentPart } from '../../src/ports/model-provider.ts';
import { isClaimExtraction, recordClaimsTurn } from '../../src/testing/claim-calls.ts';
import { ScriptedModel, scriptedResolver } from '../../src/testing/scripted-model.ts';
import { waitFor } from '../../src/testing/wait-for.ts';
import { answering, type EnrichFixture, enrichCalls, enrichFixture, noProvider, promptKind } from './fixture.ts';

let f: EnrichFixture;

beforeAll(async () => {
  f = await enrichFixture();
});
afterAll(async () => {
  await f?.close();
});

/** "Overview" is generic; the second title is a good one (four words or more, not a placeholder). */
const LEDGER =
  '# Overview\n\nThe zephyr programme replaced three legacy billing systems with a single general ledger during 2023.\n\n' +
  '## How the quarterly billing reconciliation works\n\nInvoices are matched against bank statements every quarter by the finance team.\n';

const RAINFALL =
  '# Rainfall measurements across the northern stations\n\nMonthly totals in millimetres.\n\n' +
  '| Station | January | February |\n| --- | --- | --- |\n| Alder | 81 | 64 |\n| Birch | 92 | 70 |\n';

const sectionsOf = (docId: string) => f.local.documents.sections(docId);

describe('AI section summaries (enrich.summaries)', () => {
  it('summarizes a generic-titled section after the document is ready, without blocking ready, and leaves good titles alone', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const model = answering({ summary: 'Describes the quokka ledger migration that merged three billing systems.' }, { waitFor: gate });
    const resolver = scriptedResolver(model);
    f.useModels(resolver);
    const cid = await f.collection();

    const docId = await f.ingest(cid, 'ledger.md', LEDGER); // ready while the model call is still held back
    const call = await waitFor(async () => model.calls.find((c) => promptKind(c.request) === 'summary'), 'the summary call');
    expect(promptKind(call.request)).toBe('summary');
    expect((await f.local.documents.get(docId)).status).toBe('ready');
    expect((await sectionsOf(docId)).map((s) => s.summaryType)).toEqual(['extractive', 'extractive']);

    release();
    await f.dossier.idle();
    const [overview, good] = await sectionsOf(docId);
    expect(overview).toMatchObject({
      title: 'Overview',
      summaryType: 'generated',
      summary: 'Describes the quokka ledger migration that merged three billing systems.',
    });
    expect(good).toMatchObject({ summaryType: 'extractive', summary: 'Invoices are matched against bank statements every quarter by the finance team.' });
    expect(enrichCalls(model)).toHaveLength(1);
    const user = call.request.messages.find((m) => m.role === 'user')!.content as string;
    expect(user).toContain('zephyr programme replaced three legacy billing systems');
    expect(user).not.toContain('Invoices are matched');
    // One resolution per post-ready job: the summary and the claim extraction.
    expect(resolver.requests).toEqual([
      { access: f.local.access, modelId: null, tier: 'fast' },
      { access: f.local.access, modelId: null, tier: 'fast' },
    ]);
    expect(call.request.model).toBe('scripted-fast');

    const scan = await f.local.search.scan(cid, { query: 'quokka' });
    expect(scan.results.map((r) => r.section.title)).toEqual(['Overview']);
    expect(scan.results[0]!.section.summary).toContain('quokka');
    expect((await f.local.collections.stats(cid)).summarizedCount).toBe(1);
  });

  it('asks the collection llmModel when one is set', async () => {
    const model = answering({ summary: 'A summary from the chosen model.' });
    const resolver = scriptedResolver(model);
    f.useModels(resolver);
    const cid = await f.collection({ llmModel: 'claude-haiku-4-5', enableCaptioning: false });
    await f.ingest(cid, 'ledger.md', LEDGER);
    await f.dossier.idle();
    expect(resolver.requests.map((r) => [r.modelId, r.tier])).toEqual([
      ['claude-haiku-4-5', 'fast'],
      ['claude-haiku-4-5', 'fast'],
    ]);
    expect(model.calls.map((c) => c.request.model)).toEqual(['claude-haiku-4-5', 'claude-haiku-4-5']);
  });

  it('makes no model call and keeps extractive summaries when the project has no provider', async () => {
    const model = answering({ summary: 'never', table: 'never' });
    f.useModels(noProvider(model));
    const cid = await f.collection();
    const docId = await f.ingest(cid, 'ledger.md', LEDGER);
    const tableDoc = await f.ingest(cid, 'rain.md', RAINFALL);
    await f.dossier.idle();
    expect(enrichCalls(model)).toEqual([]);
    expect((await sectionsOf(docId)).map((s) => s.summaryType)).toEqual(['extractive', 'extractive']);
    expect(await f.local.documents.captions(tableDoc)).toEqual([]);
    expect(await f.local.collections.stats(cid)).toMatchObject({ statusCounts: { ready: 2 }, summarizedCount: 0, captionedCount: 0 });
  });

  it('makes no model call when enableSummarization and enableCaptioning are false', async () => {
    const model = answering({ summary: 'never', table: 'never' });
    f.useModels(scriptedResolver(model));
    const cid = await f.collection({ enableSummarization: false, enableCaptioning: false });
    const docId = await f.ingest(cid, 'ledger.md', LEDGER);
    await f.ingest(cid, 'rain.md', RAINFALL);
    await f.dossier.idle();
    expect(enrichCalls(model)).toEqual([]);
    expect((await sectionsOf(docId)).map((s) => s.summaryType)).toEqual(['extractive', 'extractive']);
  });

  it('gives up quietly with a log line when the model fails for good, and the document stays ready', async () => {
    const model = new ScriptedModel(() => ({ error: new DossierError('provider_error', 'model rejected the request') }));
    f.useModels(scriptedResolver(model));
    const cid = await f.collection({ enableCaptioning: false });
    const docId = await f.ingest(cid, 'ledger.md', LEDGER);
    await f.dossier.idle();
    expect(enrichCalls(model)).toHaveLength(1);
    expect((await f.local.documents.get(docId)).status).toBe('ready');
    expect((await sectionsOf(docId))[0]!.summaryType).toBe('extractive');
    expect(f.warnings.filter((w) => w.startsWith('post-ready summaries gave up') && w.includes(docId))).toHaveLength(1);
  });

  it('retries a retryable model failure and then stores the summary', async () => {
    let summaryCalls = 0;
    const model = new ScriptedModel((req) => {
      if (isClaimExtraction(req)) return recordClaimsTurn();
      return summaryCalls++ === 0 ? { error: new DossierError('rate_limited', 'slow down', { retryable: true }) } : { text: 'Second attempt summary.' };
    });
    f.useModels(scriptedResolver(model));
    const cid = await f.collection({ enableCaptioning: false });
    const docId = await f.ingest(cid, 'ledger.md', LEDGER);
    const overview = await waitFor(async () => {
      const [s] = await sectionsOf(docId);
      return s?.summaryType === 'generated' ? s : null;
    }, 'the summary after a retry');
    expect(overview.summary).toBe('Second attempt summary.');
    expect(enrichCalls(model)).toHaveLength(2);
    expect((await f.local.documents.get(docId)).status).toBe('ready');
  });
});

describe('captions (enrich.captions)', () => {
  it('captions a table chunk, lists it with its content, and makes the caption searchable as a caption chunk', async () => {
    const model = answering({ table: 'Monthly rainfall in millimetres for the Alder and Birch stations, highest at Birch in January.' });
    f.useModels(scriptedResolver(model));
    const cid = await f.collection({ enableSummarization: false });
    const docId = await f.ingest(cid, 'rain.md', RAINFALL);
    await f.dossier.idle();

    const captions = await f.local.documents.captions(docId);
    expect(captions).toHaveLength(1);
    expect(captions[0]!.content).toContain('| Alder | 81 | 64 |');
    expect(captions[0]!.caption).toBe('Monthly rainfall in millimetres for the Alder and Birch stations, highest at Birch in January.');
    const table = model.calls.find((c) => promptKind(c.request) === 'table')!.request.messages.find((m) => m.role === 'user')!.content as string;
    expect(table).toContain('| Birch | 92 | 70 |');

    const { results } = await f.local.search.query(cid, { q: 'highest rainfall station' });
    const hit = results.find((r) => r.chunk.content.startsWith('Caption: '));
    expect(hit?.chunk.content).toBe(`Caption: ${captions[0]!.caption}`);
    const [section] = await sectionsOf(docId);
    const chunks = await f.local.search.sectionChunks(section!.id);
    expect(chunks.at(-1)).toMatchObject({ content: `Caption: ${captions[0]!.caption}`, position: CAPTION_POSITION });
    expect((await f.local.documents.get(docId)).chunkCount).toBe(chunks.length - 1);
    expect((await f.local.collections.stats(cid)).captionedCount).toBe(1);
  });

  it('captions a document image through a vision request that carries the image as a content part', async () => {
    const model = answering({ image: 'A diagram of agents exchanging messages.', table: 'A small table of numbers.' });
    f.useModels(scriptedResolver(model));
    const cid = await f.collection({ enableSummarization: false });
    const docId = await f.ingest(cid, 'test.docx', docxWithFigureAndTable());
    await f.dossier.idle();

    const [image] = await f.local.documents.images(docId);
    expect(image).toMatchObject({ mimeType: 'image/png', caption: 'A diagram of agents exchanging messages.' });
    const vision = model.calls.find((c) => promptKind(c.request) === 'image')!;
    const parts = vision.request.messages.find((m) => m.role === 'user')!.content as ContentPart[];
    const part = parts.find((p) => p.type === 'image');
    expect(part).toMatchObject({ type: 'image', mimeType: 'image/png' });
    const stored = await f.local.documents.image(docId, image!.id);
    expect(Buffer.from((part as { base64: string }).base64, 'base64').equals(Buffer.from(stored.bytes))).toBe(true);
    const { results } = await f.local.search.query(cid, { q: 'diagram agents exchanging messages' });
    expect(results.map((r) => r.chunk.content)).toContain('Caption: A diagram of agents exchanging messages.');
    expect((await f.local.collections.stats(cid)).captionedCount).toBe(1);
  });

  it('still captions tables when the model rejects images, and logs why images stay uncaptioned', async () => {
    const model = new ScriptedModel((req) =>
      promptKind(req) === 'image' ? { error: new DossierError('provider_error', 'this model does not accept images') } : { text: 'A table of small numbers.' },
    );
    f.useModels(scriptedResolver(model));
    const cid = await f.collection({ enableSummarization: false });
    const docId = await f.ingest(cid, 'test.docx', docxWithFigureAndTable());
    await f.dossier.idle();
    expect((await f.local.documents.images(docId)).map((i) => i.caption)).toEqual([null]);
    const tables = await f.local.documents.captions(docId);
    expect(tables.length).toBeGreaterThan(0);
    expect(tables.every((t) => t.caption === 'A table of small numbers.')).toBe(true);
    expect(model.calls.filter((c) => promptKind(c.request) === 'image')).toHaveLength(1);
    expect(f.warnings.filter((w) => w.startsWith('image captions skipped') && w.includes(docId))).toHaveLength(1);
    expect((await f.local.documents.get(docId)).status).toBe('ready');
  });
});
