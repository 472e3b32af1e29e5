import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dossier, startTestServer, type TestServer, tempHome, waitFor } from './helpers.ts';

/** Issue 43: `dossier sources` adds a server folder to a collection, runs it and shows the run's counters. */
let t: TestServer;
let allowed: string;
let env: Record<string, string>;
const { home, cleanup } = tempHome();

beforeAll(async () => {
  allowed = mkdtempSync(join(tmpdir(), 'dossier-cli-sources-'));
  mkdirSync(join(allowed, 'wiki', 'team'), { recursive: true });
  writeFileSync(join(allowed, 'wiki', 'index.md'), '# Wiki\n\nStart here.');
  writeFileSync(join(allowed, 'wiki', 'team', 'people.md'), '# People\n\nWho is who.');
  t = await startTestServer({ config: { sourceFolders: [allowed], sourcesAllowPrivateEndpoints: true } });
  const token = (await t.request('POST', '/auth/login', { auth: null, json: { email: t.email, password: t.password } })).body.token;
  env = { SERVICE_BASE_URL: t.url, SERVICE_API_KEY: t.liveKey, SERVICE_TOKEN: token, SERVICE_ORG_ID: t.orgId, SERVICE_PROJECT_ID: t.projectId };
});
afterAll(async () => {
  await t.close();
  rmSync(allowed, { recursive: true, force: true });
  cleanup();
});

describe('dossier sources', () => {
  it('adds, runs, shows runs, pauses and removes a source', async () => {
    const cid = (await t.createCollection()).id;
    const added = await dossier(home, ['sources', 'add', join(allowed, 'wiki'), '-c', cid, '--every', '60', '--json'], { env });
    expect(added.code, added.stderr).toBe(0);
    const source = JSON.parse(added.stdout);
    expect(source).toMatchObject({ collectionId: cid, location: join(allowed, 'wiki'), intervalMinutes: 60, paused: false });
    const run = await dossier(home, ['sources', 'run', source.id, '--json'], { env });
    expect(run.code, run.stderr).toBe(0);
    const runId = JSON.parse(run.stdout).id;
    const done = await waitFor(
      async () => {
        const r = await dossier(home, ['sources', 'runs', source.id, '--json'], { env });
        const found = (JSON.parse(r.stdout) as { id: string; status: string; added: number; unchanged: number }[]).find((x) => x.id === runId);
        return found && found.status !== 'running' ? found : null;
      },
      'the run to end',
      30_000,
      250,
    );
    // The scheduled run (--every) starts at once too: between the two, both files were added exactly once.
    expect(done).toMatchObject({ status: 'completed', failed: 0 });
    expect(done.added + done.unchanged).toBe(2);
    expect((await t.request('GET', `/v1/collections/${cid}/manifest`)).body.entries).toHaveLength(2);
    const table = await dossier(home, ['sources', 'runs', source.id], { env });
    expect(table.stdout).toMatch(/ADDED/);
    const paused = await dossier(home, ['sources', 'pause', source.id, '--json'], { env });
    expect(JSON.parse(paused.stdout).paused).toBe(true);
    expect((await dossier(home, ['sources', 'remove', source.id], { env })).code).toBe(0);
    const outside = await dossier(home, ['sources', 'add', '/etc', '-c', cid], { env });
    expect(outside.code).not.toBe(0);
    expect(outside.stderr).toMatch(/not inside a folder/);
  });

  it('adds an S3 prefix with the credentials of the environment, which it never shows again', async () => {
    const cid = (await t.createCollection()).id;
    const secret = 'wJalrXUtnFEMI-example-secret';
    const s3env = { ...env, AWS_ACCESS_KEY_ID: 'AKIAEXAMPLEKEY', AWS_SECRET_ACCESS_KEY: secret };
    const args = ['sources', 'add', '--s3', 's3://team-docs/wiki', '-c', cid, '--endpoint', 'http://127.0.0.1:9', '--region', 'eu-west-1'];
    const added = await dossier(home, [...args, '--json'], { env: s3env });
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({
      kind: 's3',
      location: 'team-docs/wiki/',
      settings: { bucket: 'team-docs', prefix: 'wiki/', region: 'eu-west-1', endpoint: 'http://127.0.0.1:9', accessKeyPreview: 'AKIA…EKEY' },
    });
    const listed = await dossier(home, ['sources', 'list'], { env: s3env });
    expect(listed.stdout).toContain('s3://team-docs/wiki/');
    expect(added.stdout + listed.stdout).not.toContain(secret);
    const noSecret = await dossier(home, args, { env: { ...env, AWS_ACCESS_KEY_ID: 'AKIAEXAMPLEKEY' } });
    expect(noSecret.code).not.toBe(0);
    expect(noSecret.stderr).toMatch(/AWS_SECRET_ACCESS_KEY/);
    const badUrl = await dossier(home, ['sources', 'add', '--s3', 'team-docs/wiki', '-c', cid], { env: s3env });
    expect(badUrl.stderr).toMatch(/s3:\/\/bucket\/prefix/);
  });
});
