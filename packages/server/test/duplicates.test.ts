import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, startTestServer, type TestServer, waitFor } from './helpers.ts';

let t: TestServer;
let cid: string;
let otherKey: string;
const docs: Record<string, string> = {};

const MEMO =
  '# Memo\n\nThe quarterly review moved to Thursday morning because the finance team travels on Monday and Tuesday. Please bring the updated forecasts and the staffing plan for the new warehouse in Ghent.\n';

beforeAll(async () => {
  t = await startTestServer();
  cid = (await t.createCollection({ name: 'Memos' })).id;
  await t.request('PATCH', `/v1/collections/${cid}`, { json: { enableDeduplication: true, enableSummarization: false, enableCaptioning: false } });
  docs.memo = (await t.ingest(cid, 'memo.md', MEMO)).id;
  docs.forward = (await t.ingest(cid, 'Fwd memo.txt', `Forwarded message\n\n${MEMO.replace('# Memo\n\n', '')}`)).id;
  docs.other = (await t.ingest(cid, 'lunch.md', '# Lunch\n\nThe canteen serves soup on Wednesdays and pasta on Fridays for everyone in the building.\n')).id;
  await t.server.dossier.idle();
  otherKey = (await t.server.dossier.auth.bootstrap('dups-other@example.test', 'another long password'))!.liveKey;
});
afterAll(async () => {
  await t?.close();
});

describe('duplicates over HTTP', () => {
  it('lists the group formed at ingestion, with coverage both ways, and hides the copy from query', async () => {
    const res = await t.request('GET', `/v1/collections/${cid}/duplicates`);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(1);
    const [group] = res.body.items;
    expect(Object.keys(group).sort()).toEqual(['canonicalDocumentId', 'detectedAt', 'id', 'members']);
    expect(group.members.map((member: { filename: string }) => member.filename).sort()).toEqual(['Fwd memo.txt', 'memo.md']);
    const nearDuplicate = group.members.find((member: { relationship: string }) => member.relationship === 'near_duplicate');
    expect(nearDuplicate.coverageToCanonical).toBeGreaterThan(0.8);
    const hits = await t.request('POST', `/v1/collections/${cid}/query`, { json: { q: 'quarterly review Thursday forecasts' } });
    expect(new Set(hits.body.map((hit: { document: { id: string } }) => hit.document.id)).size).toBe(1);
    expect((await t.request('GET', `/v1/documents/${nearDuplicate.documentId}`)).body.canonical).toBe(false);
    expectError(await t.request('GET', `/v1/collections/${cid}/duplicates?limit=0`), 400);
  });

  it('promotes with PATCH and disbands with DELETE', async () => {
    const [group] = (await t.request('GET', `/v1/collections/${cid}/duplicates`)).body.items;
    const other = group.members.find((member: { relationship: string }) => member.relationship === 'near_duplicate').documentId;
    const promoted = await t.request('PATCH', `/v1/collections/${cid}/duplicates/${group.id}`, { json: { canonicalDocumentId: other } });
    expect(promoted.body).toEqual({ success: true, changed: true });
    expectError(await t.request('PATCH', `/v1/collections/${cid}/duplicates/${group.id}`, { json: { canonicalDocumentId: docs.other } }), 400);
    const disbanded = await t.request('DELETE', `/v1/collections/${cid}/duplicates/${group.id}`);
    expect(disbanded.body).toEqual({ success: true, groupId: group.id, members: 2 });
    expect((await t.request('GET', `/v1/collections/${cid}/duplicates`)).body.total).toBe(0);
    expectError(await t.request('DELETE', `/v1/collections/${cid}/duplicates/${group.id}`), 404);
  });

  it('runs a detection (202, then the run), and answers 409 while one is in flight', async () => {
    const started = await t.request('POST', `/v1/collections/${cid}/duplicates/detect`);
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ runId: expect.any(String), status: 'pending', jobsEnqueued: 2, enqueuedAt: expect.any(String) });
    const again = await t.request('POST', `/v1/collections/${cid}/duplicates/detect`);
    if (again.status !== 202) expectError(again, 409);
    const run = await waitFor(async () => {
      const latest = await t.request('GET', `/v1/collections/${cid}/duplicates/runs/latest`);
      return latest.body.status === 'completed' ? latest.body : null;
    }, 'the detection run');
    expect(run).toMatchObject({ jobsProcessed: 2, duplicatesDetected: 0, duplicateGroupsCreated: 0 }); // the disbanded pair stays apart
  });

  it("needs this project's API key", async () => {
    for (const [method, path] of [
      ['GET', `/v1/collections/${cid}/duplicates`],
      ['POST', `/v1/collections/${cid}/duplicates/detect`],
      ['GET', `/v1/collections/${cid}/duplicates/runs/latest`],
    ] as const) {
      expectError(await t.request(method, path, { auth: null }), 401);
      expectError(await t.request(method, path, { auth: otherKey }), 404);
    }
  });
});

const LESSON = [
  'Inheritance lets a programmer define a new class from an existing one, reusing its fields and methods without copying them.',
  'The existing class is called the parent or base class, and the new one is the child or derived class.',
  'A derived class may override a method of its parent to change what it does, while callers keep using the same interface.',
  'Languages differ in whether a class may have several parents; multiple inheritance brings the diamond problem with it.',
  'Many designers now prefer composition, holding an instance of another class, because it couples the two classes more loosely.',
  'Deep hierarchies are hard to change, since a modification high in the tree ripples through every descendant below it.',
];

describe('duplicates over HTTP: edited pastes and other formats, with the passages they share', () => {
  it("groups an HTML copy and an edited paste inside someone's own text, keeps a same-topic text apart, and shows the shared spans", async () => {
    const lessons = (await t.createCollection({ name: 'Lessons' })).id;
    await t.request('PATCH', `/v1/collections/${lessons}`, { json: { enableDeduplication: true, enableSummarization: false, enableCaptioning: false } });
    const source = (await t.ingest(lessons, 'lesson.md', `# Inheritance\n\n${LESSON.join(' ')}\n`)).id;
    const html = (await t.ingest(lessons, 'lesson.html', `<html><body><h1>Inheritance</h1>${LESSON.map((s) => `<p>${s}</p>`).join('')}</body></html>`)).id;
    const pasted = `My answer to question two. ${LESSON[3]!.replace('several', 'many').toUpperCase()} ${LESSON[2]!.replace('callers', 'the callers')} ${LESSON[4]!.replace('loosely', 'losely')} I hope this helps.`;
    const answer = (await t.ingest(lessons, 'answer.txt', pasted)).id;
    const topic = (
      await t.ingest(
        lessons,
        'design.md',
        '# Design\n\nA class groups data with methods. A child class can extend a parent class and override methods, and composition keeps classes loosely coupled in a shallow hierarchy.\n',
      )
    ).id;
    await t.server.dossier.idle();

    const res = await t.request('GET', `/v1/collections/${lessons}/duplicates`);
    expect(res.body.total).toBe(1);
    const [group] = res.body.items;
    expect(group.members.map((member: { documentId: string }) => member.documentId).sort()).toEqual([source, html, answer].sort());
    expect(group.members.some((member: { documentId: string }) => member.documentId === topic)).toBe(false);
    const markdownOf = async (id: string): Promise<string> => (await t.request('GET', `/v1/documents/${id}/markdown`)).body as string;
    const canonical = await markdownOf(group.canonicalDocumentId);
    for (const member of group.members.filter((m: { relationship: string }) => m.relationship === 'near_duplicate')) {
      expect(member.sharedPassages.length).toBeGreaterThan(0);
      const own = await markdownOf(member.documentId);
      for (const passage of member.sharedPassages) {
        const [mine, theirs] = [own.slice(passage.member.start, passage.member.end), canonical.slice(passage.canonical.start, passage.canonical.end)];
        expect(mine.length).toBeGreaterThan(40);
        expect(mine.replace(/\s+/g, ' ').startsWith(passage.member.excerpt.replace(/…$/, ''))).toBe(true);
        expect(theirs.replace(/\s+/g, ' ').startsWith(passage.canonical.excerpt.replace(/…$/, ''))).toBe(true);
      }
    }
    const answerMember = group.members.find((member: { documentId: string }) => member.documentId === answer);
    const answerText = await markdownOf(answer);
    const covered = answerMember.sharedPassages
      .map((p: { member: { start: number; end: number } }) => answerText.slice(p.member.start, p.member.end))
      .join(' ');
    expect(covered).not.toContain('My answer'); // the writer's own words are not part of any shared passage
    expect(covered.toLowerCase()).toContain('multiple inheritance brings the diamond problem');

    // Issue 37: any two members compared, here the two near duplicates (neither is the canonical).
    const [left, right] = group.members
      .filter((m: { relationship: string }) => m.relationship === 'near_duplicate')
      .map((m: { documentId: string }) => m.documentId);
    const compare = (query: string) => t.request('GET', `/v1/collections/${lessons}/duplicates/${group.id}/compare?${query}`);
    const pair = await compare(`left=${left}&right=${right}`);
    expect(pair.status, JSON.stringify(pair.body)).toBe(200);
    expect([pair.body.left.documentId, pair.body.right.documentId]).toEqual([left, right]);
    expect(pair.body.leftCoverage).toBeGreaterThan(0);
    expect(pair.body.rightCoverage).toBeGreaterThan(0);
    expect(pair.body.passages.length).toBeGreaterThan(0);
    const [leftText, rightText] = [await markdownOf(left), await markdownOf(right)];
    for (const passage of pair.body.passages) {
      expect(leftText.slice(passage.left.start, passage.left.end).replace(/\s+/g, ' ').startsWith(passage.left.excerpt.replace(/…$/, ''))).toBe(true);
      expect(rightText.slice(passage.right.start, passage.right.end).replace(/\s+/g, ' ').startsWith(passage.right.excerpt.replace(/…$/, ''))).toBe(true);
    }
    expectError(await compare(`left=${left}&right=${left}`), 400, /different/);
    expectError(await compare(`left=${left}&right=${topic}`), 400, /members/);
    expectError(await compare(`left=${left}`), 400, /right/);
    expectError(await t.request('GET', `/v1/collections/${lessons}/duplicates/${group.id}/compare?left=${left}&right=${right}`, { auth: otherKey }), 404);
  });
});
