import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EnrichFixture, enrichFixture } from '../enrich/fixture.ts';

let f: EnrichFixture;
beforeAll(async () => {
  f = await enrichFixture();
});
afterAll(async () => {
  await f?.close();
});

const PARAGRAPHS = [
  'The harbour authority approved a new breakwater for the northern basin after three winters of storm damage to the moorings.',
  'Construction will use rock armour quarried twelve kilometres inland and is expected to take eighteen months to complete.',
  'Fishing vessels will be moved to the southern quay during the works, and the ferry timetable is unchanged for the season.',
  'A public consultation found broad support, with concerns about lorry traffic through the old town addressed by a new route.',
  'The total budget is forty-two million euros, shared between the regional government and the port operating company.',
];
const REPORT = `# Harbour works\n\n${PARAGRAPHS.join('\n\n')}\n`;
const REFORMATTED = `HARBOUR WORKS\n\n${PARAGRAPHS.map((p) => p.replace(/, /g, ' , ')).join(' ')}\n\nPrinted from the intranet.`;
const EXCERPT = `# Budget note\n\n${PARAGRAPHS[3]}\n\n${PARAGRAPHS[4]}\n`;
const UNRELATED =
  '# Harbour festival\n\nThe harbour festival returns in July with boat races, a fish market and concerts on the southern quay every evening.\n';

const search = (cid: string, q: string) => f.local.search.query(cid, { q, limit: 10 });

describe('near-duplicate documents, end to end on the embedded Dossier', () => {
  it('groups a reformatted copy and an excerpt as they become ready, hides them from retrieval, and keeps unrelated text apart', async () => {
    const cid = await f.collection({ enableDeduplication: true, enableSummarization: false, enableCaptioning: false });
    const report = await f.ingest(cid, 'report.md', REPORT);
    const copy = await f.ingest(cid, 'report-printout.txt', REFORMATTED);
    await f.dossier.idle();
    const excerpt = await f.ingest(cid, 'budget-note.md', EXCERPT);
    const festival = await f.ingest(cid, 'festival.md', UNRELATED);
    await f.dossier.idle();

    const { total, items } = await f.local.duplicates.list(cid, { limit: 50, offset: 0 });
    expect(total).toBe(1);
    const group = items[0]!;
    expect(group.canonicalDocumentId).toBe(copy); // the printout carries one more sentence: the most complete text
    const byId = new Map(group.members.map((member) => [member.documentId, member]));
    expect(byId.get(copy)).toMatchObject({ relationship: 'canonical', coverageToCanonical: null, coverageFromCanonical: null });
    expect(byId.get(report)?.relationship).toBe('near_duplicate');
    expect(byId.get(report)?.coverageToCanonical).toBeGreaterThan(0.9);
    expect(byId.get(excerpt)?.coverageToCanonical).toBeGreaterThan(0.9);
    expect(byId.get(excerpt)?.coverageFromCanonical).toBeLessThan(0.5);
    expect(byId.has(festival)).toBe(false);
    expect((await f.local.documents.get(report)).canonical).toBe(false);

    const hits = await search(cid, 'breakwater rock armour budget');
    const found = new Set(hits.results.map((hit) => hit.document.id));
    expect(hits.results[0]?.document.id).toBe(copy);
    expect([found.has(report), found.has(excerpt)]).toEqual([false, false]); // hidden; query expansion may add the festival
    expect((await f.local.documents.get(report)).status).toBe('ready'); // still readable by id
  });

  it('promotes, hands over on delete, and disbands so every member is searchable again and stays apart', async () => {
    const cid = await f.collection({ enableDeduplication: true, enableSummarization: false, enableCaptioning: false });
    const report = await f.ingest(cid, 'report.md', REPORT);
    const copy = await f.ingest(cid, 'report-copy.md', REPORT);
    const excerpt = await f.ingest(cid, 'budget-note.md', EXCERPT);
    await f.dossier.idle();
    let [group] = (await f.local.duplicates.list(cid, { limit: 50, offset: 0 })).items;
    expect(group!.canonicalDocumentId).toBe(report); // equal texts: the earliest upload
    expect(await f.local.duplicates.promote(cid, group!.id, copy)).toEqual({ success: true, changed: true });
    expect(await f.local.duplicates.promote(cid, group!.id, copy)).toEqual({ success: true, changed: false });
    [group] = (await f.local.duplicates.list(cid, { limit: 50, offset: 0 })).items;
    expect(group!.members.find((member) => member.documentId === report)).toMatchObject({
      relationship: 'near_duplicate',
      coverageToCanonical: null,
      coverageFromCanonical: null,
    });

    await f.local.documents.remove(copy);
    [group] = (await f.local.duplicates.list(cid, { limit: 50, offset: 0 })).items;
    expect(group!.canonicalDocumentId).toBe(report);
    expect((await f.local.documents.get(report)).canonical).toBe(true);

    await f.local.duplicates.disband(cid, group!.id);
    expect((await f.local.duplicates.list(cid, { limit: 50, offset: 0 })).total).toBe(0);
    expect((await f.local.documents.get(excerpt)).canonical).toBe(true);
    const hits = await search(cid, 'budget forty-two million regional government');
    expect(new Set(hits.results.map((hit) => hit.document.id))).toEqual(new Set([report, excerpt]));

    await f.local.duplicates.detect(cid);
    await f.dossier.idle();
    expect((await f.local.duplicates.list(cid, { limit: 50, offset: 0 })).total).toBe(0); // disbanded pairs stay apart
  });

  it('detects over a collection without the flag in fingerprint jobs, counts the run, and refuses a second run in flight', async () => {
    const cid = await f.collection({ enableSummarization: false, enableCaptioning: false });
    const report = await f.ingest(cid, 'report.md', REPORT);
    await f.ingest(cid, 'copy.md', REPORT);
    await f.ingest(cid, 'festival.md', UNRELATED);
    await f.dossier.idle();
    expect((await f.local.duplicates.list(cid, { limit: 50, offset: 0 })).total).toBe(0);
    const started = await f.local.duplicates.detect(cid);
    expect(started).toMatchObject({ status: 'pending', jobsEnqueued: 2 });
    await expect(f.local.duplicates.detect(cid)).rejects.toMatchObject({ code: 'conflict' });
    await f.dossier.idle();
    const run = await f.local.duplicates.latestRun(cid);
    expect(run).toMatchObject({
      id: started.runId,
      status: 'completed',
      jobsEnqueued: 2,
      jobsProcessed: 2,
      duplicatesDetected: 1,
      duplicateGroupsCreated: 1,
      error: null,
    });
    const [group] = (await f.local.duplicates.list(cid, { limit: 50, offset: 0 })).items;
    expect(group!.canonicalDocumentId).toBe(report);
    expect(group!.members).toHaveLength(2);
  });
});
