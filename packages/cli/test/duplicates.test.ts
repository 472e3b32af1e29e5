import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dossier, startTestServer, type TestServer, tempHome } from './helpers.ts';

let t: TestServer;
let cid: string;
let home: { home: string; cleanup: () => void };
const TEXT = 'The library opens at nine on weekdays and at ten on Saturdays, and it closes on Sundays and public holidays throughout the year.';

beforeAll(async () => {
  t = await startTestServer();
  cid = (await t.createCollection({ name: 'Library' })).id;
  await t.ingest(cid, 'hours.md', `# Opening hours\n\n${TEXT}\n`);
  await t.ingest(cid, 'hours-copy.txt', `${TEXT}\n`);
  home = tempHome();
});
afterAll(async () => {
  home?.cleanup();
  await t?.close();
});

const run = (args: string[]) => dossier(home.home, [...args, '-c', cid], { env: { SERVICE_BASE_URL: t.url, SERVICE_API_KEY: t.liveKey } });

describe('dossier duplicates', () => {
  it('detects with --watch, lists the group, resolves and dismisses it', async () => {
    const detected = await run(['duplicates', 'detect', '--watch']);
    expect(detected.code, detected.stderr).toBe(0);
    expect(detected.stderr + detected.stdout).toMatch(/done: 1 near-duplicate\(s\), 1 new group\(s\)/);
    const listed = await run(['duplicates', 'list']);
    expect(listed.stdout).toContain('hours-copy.txt');
    expect(listed.stdout).toContain('canonical');
    const [group] = JSON.parse((await run(['duplicates', 'list', '--json'])).stdout).items;
    const other = group.members.find((member: { relationship: string }) => member.relationship === 'near_duplicate').documentId;
    expect(JSON.parse((await run(['duplicates', 'resolve', group.id, other, '--json'])).stdout)).toEqual({ success: true, changed: true });
    const dismissed = await run(['duplicates', 'dismiss', group.id]);
    expect(dismissed.code, dismissed.stderr).toBe(0);
    expect(JSON.parse((await run(['duplicates', 'list', '--json'])).stdout).total).toBe(0);
    expect((await run(['duplicates', 'resolve', group.id])).code).not.toBe(0);
  });
});
