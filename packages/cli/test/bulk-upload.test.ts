import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapCredentials, type Server, startServer } from '../../../test/server-process.ts';
import { dossier, ndjson, spawnDossier, tempHome, waitFor } from './helpers.ts';

/**
 * `dossier upload` of a folder against a real server process that answers 429 beyond 10 requests a second per key:
 * every file is stored once, the busy answers are retried at the server's pace, and a run killed midway resumes.
 */
describe('bulk upload against a rate-limited server process', () => {
  let dataDir: string;
  let folder: string;
  let server: Server;
  let env: Record<string, string>;
  const collections: Record<'paced' | 'resumed', string> = { paced: '', resumed: '' };
  const { home, cleanup } = tempHome();
  const FILES = 60;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'dossier-bulk-server-'));
    folder = mkdtempSync(join(tmpdir(), 'dossier-bulk-files-'));
    mkdirSync(join(folder, 'notes'));
    for (let i = 0; i < FILES; i++) writeFileSync(join(folder, 'notes', `note-${i}.md`), `# Note ${i}\n\nThe content of note number ${i}.\n`);
    server = await startServer(dataDir, ['--rate-limit-key', '10/1s+5', '--rate-limit-anonymous', 'off', '--workers', '4']);
    const creds = bootstrapCredentials(dataDir);
    env = { SERVICE_BASE_URL: `${server.url}/v1`, SERVICE_API_KEY: creds.live_api_key!, SERVICE_PROJECT_ID: creds.project_id! };
    for (const name of ['paced', 'resumed'] as const) {
      const r = await dossier(home, ['collections', 'create', name, '--json'], { env });
      expect(r.code, r.stderr).toBe(0);
      collections[name] = (JSON.parse(r.stdout) as { id: string }).id;
    }
  }, 60_000);

  afterAll(async () => {
    server?.proc.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(folder, { recursive: true, force: true });
    cleanup();
  });

  /** The collection's stats, asked until the key's rate limit lets the request through. */
  const stats = (collectionId: string) =>
    waitFor(
      async () => {
        const res = await fetch(`${server.url}/v1/collections/${collectionId}/stats`, { headers: { authorization: `Bearer ${env.SERVICE_API_KEY}` } });
        return res.status === 200 ? ((await res.json()) as { docCount: number; statusCounts: Record<string, number> }) : null;
      },
      'the stats past the rate limit',
      30_000,
      200,
    );

  it('stores every file once, retrying the answers that said the server was busy', async () => {
    const id = collections.paced;
    const r = await dossier(home, ['upload', folder, '-c', id, '-j', '16', '--json'], { env });
    expect(
      r.code,
      `${r.stderr}\n${r.stdout
        .split('\n')
        .filter((l) => !l.includes('"uploaded"'))
        .join('\n')}`,
    ).toBe(0);
    const events = ndjson(r.stdout);
    expect(events.filter((e) => e.type === 'uploaded')).toHaveLength(FILES);
    expect(events.filter((e) => e.type === 'failed')).toEqual([]);
    expect(events.some((e) => e.type === 'busy' && e.status === 429)).toBe(true);
    expect((await stats(id)).docCount).toBe(FILES);
  }, 120_000);

  it('resumes a run killed midway without uploading any file twice', async () => {
    const id = collections.resumed;
    const first = await spawnDossier(home, ['upload', folder, '-c', id, '-j', '4', '--json'], { env });
    await first.until('stdout', /(?:[\s\S]*?"type":"uploaded"){10}/, 60_000);
    first.child.kill('SIGKILL');
    await first.exit();
    const again = await dossier(home, ['upload', folder, '-c', id, '-j', '8', '--json', '--wait'], { env });
    expect(
      again.code,
      `${again.stderr}\n${again.stdout
        .split('\n')
        .filter((l) => !l.includes('"uploaded"') && !l.includes('"done"'))
        .join('\n')}`,
    ).toBe(0);
    const events = ndjson(again.stdout);
    const skipped = events.filter((e) => e.type === 'skipped').length;
    expect(skipped).toBeGreaterThanOrEqual(10);
    expect(skipped + events.filter((e) => e.type === 'uploaded').length).toBe(FILES);
    const s = await stats(id);
    // A file killed between upload-url and its PUT leaves a pending document without a file; none is stored twice.
    expect(s.statusCounts.ready).toBe(FILES);
    expect(s.docCount - FILES).toBeLessThanOrEqual(4);
  }, 180_000);
});
