import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintOf } from '../../src/claims/judge.ts';
import { isClaimExtraction, recordClaimsTurn } from '../../src/testing/claim-calls.ts';
import { ScriptedModel, type ScriptedTurn, scriptedResolver } from '../../src/testing/scripted-model.ts';
import { waitFor } from '../../src/testing/wait-for.ts';
import { type EnrichFixture, enrichFixture, noProvider } from '../enrich/fixture.ts';

let f: EnrichFixture;
beforeAll(async () => {
  f = await enrichFixture();
});
afterAll(async () => {
  await f?.close();
});

const LYON_2023 =
  '# Lyon plant\n\nThe Lyon plant opened in 2019 and employs 1,200 people across three shifts.\n\n' +
  '## Exports\n\nThe plant exports bearings to Spain, Italy and Portugal every week.\n';
const LYON_2024 = '# Site report\n\nThe Lyon plant employs 800 people since the 2024 restructuring.\n';

/** The first user message of a request. */
const userText = (turnRequest: { messages: { role: string; content: unknown }[] }): string =>
  String(turnRequest.messages.find((message) => message.role === 'user')?.content ?? '');

/** Claims by document: each extraction call answers with the claims of the document it reads. */
function extractor(judge: (request: { messages: { role: string; content: unknown }[] }) => ScriptedTurn): ScriptedModel {
  return new ScriptedModel((request) => {
    if (!isClaimExtraction(request)) return judge(request);
    const text = userText(request);
    if (text.includes('1,200 people')) {
      return recordClaimsTurn([
        { section: 1, text: 'The Lyon plant employs 1,200 people.', importance: 4, sourceText: 'employs 1,200 people across three shifts' },
        { section: 1, text: 'The Lyon plant opened in 2019.', importance: 3, sourceText: 'The Lyon plant opened in 2019' },
        { section: 2, text: 'The plant exports to Germany.', importance: 2, sourceText: 'Shipments leave for Germany by rail' },
      ]);
    }
    return recordClaimsTurn([{ section: 1, text: 'The Lyon plant employs 800 people.', importance: 5, sourceText: 'The Lyon plant employs 800 people' }]);
  });
}

/** The numbers of the judge prompt's claims that mention a headcount ("N. [doc] … employs …"). */
const headcountClaims = (request: { messages: { role: string; content: unknown }[] }): number[] =>
  [...userText(request).matchAll(/^(\d+)\. .*employs/gm)].map((match) => Number(match[1]));

const verdict = (claims: number[]): ScriptedTurn => ({
  toolCalls: [
    {
      name: 'report_contradictions',
      arguments: {
        topicSummary: 'Lyon plant headcount',
        contradictions: [
          { claims, severity: 'high', explanation: 'The headcounts differ.', suggestedInstruction: 'Prefer the 2024 site report for headcounts.' },
        ],
      },
    },
  ],
});

describe('claims and contradictions, end to end on the embedded Dossier', () => {
  it('extracts claims after ready, verifies quotes, counts them, judges similar claims and keeps re-runs idempotent', async () => {
    const judged: string[] = [];
    const model = extractor((request) => {
      judged.push(userText(request));
      return verdict(headcountClaims(request));
    });
    f.useModels(scriptedResolver(model));
    const cid = await f.collection({ enableSummarization: false, enableCaptioning: false });
    const first = await f.ingest(cid, 'lyon-2023.md', LYON_2023);
    const second = await f.ingest(cid, 'lyon-2024.md', LYON_2024);
    await f.dossier.idle();

    const { claims } = await f.local.claims.documentClaims(first, 1);
    expect(claims.map((claim) => [claim.text, claim.position, claim.importance])).toEqual([
      ['The Lyon plant employs 1,200 people.', 0, 4],
      ['The Lyon plant opened in 2019.', 1, 3],
      ['The plant exports to Germany.', 2, 2],
    ]);
    expect(claims[0]!.sourceText).toBe('employs 1,200 people across three shifts');
    expect(claims[2]!.sourceText).toBeNull(); // the quote is not in the section: never passed on as a source
    expect(claims[2]!.sectionTitle).toBe('Exports');
    expect((await f.local.claims.documentClaims(first, 3)).claims).toHaveLength(2);
    const stats = await f.local.collections.stats(cid);
    expect([stats.claimsExtractedCount, stats.totalClaimsCount]).toEqual([2, 4]);

    const started = await f.local.claims.detectContradictions(cid);
    expect(started.status).toBe('enqueued');
    await f.dossier.idle();
    const run = await f.local.claims.latestContradictionRun(cid);
    expect(run).toMatchObject({
      id: started.runId,
      status: 'completed',
      claimsProcessed: 4,
      clustersAnalyzed: 1,
      contradictionsFound: 1,
      model: 'scripted-fast',
    });
    expect(judged).toHaveLength(1);
    expect(judged[0]).toContain('1,200 people');
    expect(judged[0]).toContain('800 people');

    const { total, items } = await f.local.claims.listContradictions(cid, { status: 'active', limit: 20 });
    expect(total).toBe(1);
    expect(items[0]).toMatchObject({
      severity: 'high',
      clusterTopicSummary: 'Lyon plant headcount',
      suggestedInstruction: 'Prefer the 2024 site report for headcounts.',
    });
    expect(items[0]!.claims.map((claim) => claim.documentName).sort()).toEqual(['lyon-2023.md', 'lyon-2024.md']);
    expect((await f.local.claims.listContradictions(cid, { status: 'active', documentId: second, limit: 20 })).total).toBe(1);
    expect((await f.local.claims.contradictionFiles(cid, { status: 'active' })).files.map((file) => [file.filename, file.contradictionCount])).toEqual([
      ['lyon-2023.md', 1],
      ['lyon-2024.md', 1],
    ]);

    // A research answer citing a section in an active contradiction says so on its source.
    f.useModels(
      scriptedResolver(
        new ScriptedModel((request) =>
          request.messages.some((message) => message.role === 'tool')
            ? { text: 'The plant employs 800 people [S1].' }
            : { toolCalls: [{ name: 'search', arguments: { query: 'Lyon plant employs people' } }] },
        ),
      ),
    );
    const answer = await f.local.research.runSync(cid, { q: 'How many people work at the Lyon plant?', depth: 'quick' }, new AbortController().signal);
    const cited = answer.sources.find((source) => source.marker === 'S1');
    expect(cited?.contradictions).toEqual([{ contradictionId: items[0]!.id, severity: 'high' }]);
    f.useModels(scriptedResolver(model));
    const judgedBefore = judged.length;

    await f.local.claims.dismissContradiction(cid, items[0]!.id);
    await f.local.claims.detectContradictions(cid);
    await f.dossier.idle();
    expect((await f.local.claims.latestContradictionRun(cid)).contradictionsFound).toBe(0);
    expect(judged.length).toBe(judgedBefore + 1); // judged again, found again, not stored again
    expect((await f.local.claims.listContradictions(cid, { status: 'dismissed', limit: 20 })).items.map((item) => item.id)).toEqual([items[0]!.id]);
    expect((await f.local.claims.listContradictions(cid, { status: 'active', limit: 20 })).total).toBe(0);
    expect(fingerprintOf(items[0]!.claims.map((claim) => claim.claimId))).toBeTruthy();
  });

  it('appends an applied instruction to the collection instructions and refuses one that would pass 4,000 characters', async () => {
    f.useModels(scriptedResolver(extractor((request) => verdict(headcountClaims(request)))));
    const cid = await f.collection({ enableSummarization: false, enableCaptioning: false, instructions: 'Cite every source.' });
    await f.ingest(cid, 'lyon-2023.md', LYON_2023);
    await f.ingest(cid, 'lyon-2024.md', LYON_2024);
    await f.dossier.idle();
    await f.local.claims.detectContradictions(cid);
    await f.dossier.idle();
    const [contradiction] = (await f.local.claims.listContradictions(cid, { status: 'active', limit: 20 })).items;
    await expect(f.local.claims.applyInstruction(cid, contradiction!.id, 'x'.repeat(3_990))).rejects.toThrow(/at most 4000/);
    expect((await f.local.collections.get(cid)).instructions).toBe('Cite every source.');
    await f.local.claims.applyInstruction(cid, contradiction!.id);
    expect((await f.local.collections.get(cid)).instructions).toBe('Cite every source.\n\nPrefer the 2024 site report for headcounts.');
    expect((await f.local.claims.listContradictions(cid, { status: 'applied', limit: 20 })).total).toBe(1);
  });

  it('maps claims to 2-D from TF-IDF vectors in a lexical-only collection, caches the map, and recompute clears it', async () => {
    const model = extractor(() => verdict([]));
    f.useModels(scriptedResolver(model));
    const cid = await f.collection({ enableSummarization: false, enableCaptioning: false });
    await f.ingest(cid, 'lyon-2023.md', LYON_2023);
    await f.ingest(cid, 'lyon-2024.md', LYON_2024);
    await f.dossier.idle();
    const progress: number[] = [];
    const map = await f.local.claims.claimMap(cid, (pct) => progress.push(pct));
    expect(map.total).toBe(4);
    expect(map.claims.every((item) => Number.isFinite(item.x) && Number.isFinite(item.y))).toBe(true);
    expect(new Set(map.claims.map((item) => `${item.x},${item.y}`)).size).toBeGreaterThan(1);
    expect(map.claims.find((item) => item.text.includes('800'))).toMatchObject({ documentName: 'lyon-2024.md', importance: 5 });
    expect(progress.at(-1)).toBe(100);
    const calls = model.calls.length;

    const again: number[] = [];
    expect((await f.local.claims.claimMap(cid, (pct) => again.push(pct))).claims).toEqual(map.claims);
    expect(again).toEqual([100]);

    await f.local.claims.recomputeClaims(cid);
    await waitFor(async () => model.calls.length >= calls + 2, 'the re-extraction calls');
    await f.dossier.idle();
    expect((await f.local.collections.stats(cid)).totalClaimsCount).toBe(4);
  });

  it('extracts nothing and refuses a contradiction run when the project has no model provider', async () => {
    f.useModels(noProvider());
    const cid = await f.collection();
    const doc = await f.ingest(cid, 'lyon-2023.md', LYON_2023);
    await f.dossier.idle();
    expect((await f.local.claims.documentClaims(doc, 1)).claims).toEqual([]);
    expect((await f.local.collections.stats(cid)).claimsExtractedCount).toBe(0);
    await expect(f.local.claims.detectContradictions(cid)).rejects.toThrow(/No model provider/);
  });
});
