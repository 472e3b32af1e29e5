import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dossier, ndjson, type RunOptions, startTestServer, type TestServer, tempHome } from './helpers.ts';

let t: TestServer;
let files: string;
const cleanups: (() => void)[] = [];

const REPORT = '# Annual report\n\n## Revenue\n\nRevenue grew 12 percent in 2024.\n\n## Costs\n\nCosts fell by 3 percent.\n';

beforeAll(async () => {
  t = await startTestServer();
  files = mkdtempSync(join(tmpdir(), 'dossier-cli-files-'));
  mkdirSync(join(files, 'tree', 'sub'), { recursive: true });
  writeFileSync(join(files, 'tree', 'a.md'), '# Alpha\n\nThe alpha document.\n');
  writeFileSync(join(files, 'tree', 'sub', 'b.md'), '# Beta\n\nThe beta document.\n');
  writeFileSync(join(files, 'tree', 'sub', 'c.txt'), 'Gamma, plain text.\n');
  writeFileSync(join(files, 'tree', '.hidden.md'), '# Hidden\n');
  writeFileSync(join(files, 'report.md'), REPORT);
  writeFileSync(join(files, 'broken.pdf'), '%PDF-1.7\nthis is not really a PDF\n');
});
afterAll(async () => {
  for (const c of cleanups) c();
  rmSync(files, { recursive: true, force: true });
  await t?.close();
});

/** A fresh HOME per test, and the server's address and keys in the environment. */
function user(extra: RunOptions['env'] = {}) {
  const h = tempHome();
  cleanups.push(h.cleanup);
  const env = { SERVICE_BASE_URL: t.url, SERVICE_API_KEY: t.liveKey, SERVICE_PROJECT_ID: t.projectId, ...extra };
  return { home: h.home, run: (args: string[], opts: RunOptions = {}) => dossier(h.home, args, { ...opts, env: { ...env, ...opts.env } }) };
}

describe.concurrent('collections, and the remembered collection', () => {
  it('creates a collection (--json), remembers it in state.json, and lets later commands omit -c', async () => {
    const u = user();
    const created = await u.run(['collections', 'create', 'CLI remembered', '--description', 'made by the CLI', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const col = JSON.parse(created.stdout);
    expect(col).toMatchObject({ name: 'CLI remembered', description: 'made by the CLI', visibility: 'private', embeddingModel: 'none' });
    const state = JSON.parse(readFileSync(join(u.home, '.config', 'dossier', 'state.json'), 'utf8'));
    expect(state.lastCollection[`${t.url}/v1`]).toBe(col.id);

    const list = await u.run(['collections', 'list', '--json']);
    expect(JSON.parse(list.stdout).map((c: { id: string }) => c.id)).toContain(col.id);
    expect(JSON.parse((await u.run(['docs', 'list', '--json'])).stdout)).toEqual({ documents: [], total: 0 });
    const stats = await u.run(['collections', 'stats', '--json']);
    expect(JSON.parse(stats.stdout)).toMatchObject({ docCount: 0, totalChunks: 0 });
  });

  it('remembers a collection given with -c, by id or by unique name', async () => {
    const u = user();
    const col = await t.createCollection({ name: 'Named for the CLI' });
    expect((await u.run(['docs', 'list', '-c', 'named for the cli', '--json'])).code).toBe(0);
    const get = await u.run(['collections', 'get', '--json']);
    expect(JSON.parse(get.stdout).id).toBe(col.id);
    const missing = await u.run(['docs', 'list', '-c', 'no such name']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('dossier collections list');
  });

  it('updates and deletes a collection, forgetting it when it was the remembered one', async () => {
    const u = user();
    const col = JSON.parse((await u.run(['collections', 'create', 'Short-lived', '--json'])).stdout);
    const updated = await u.run(['collections', 'update', '--name', 'Renamed', '--instructions', 'Answer briefly', '--disable', 'reranking', '--json']);
    expect(JSON.parse(updated.stdout)).toMatchObject({ id: col.id, name: 'Renamed', instructions: 'Answer briefly', enableReranking: false });
    const human = await u.run(['collections', 'list']);
    expect(human.stdout).toMatch(/^ID|^ +ID/m);
    expect(human.stdout).toMatch(new RegExp(`^\\* +${col.id} +Renamed`, 'm'));
    expect((await u.run(['collections', 'delete', col.id])).code).toBe(0);
    const after = await u.run(['docs', 'list']);
    expect(after.code).toBe(2);
    expect(after.stderr).toContain('pass -c <collection-id> or run `dossier collections list`');
  });

  it('creates a collection with a name another one has, and says so (names need not be unique)', async () => {
    const u = user();
    const first = await t.createCollection({ name: 'Twice named' });
    const r = await u.run(['collections', 'create', 'Twice named']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`note: another collection is also named 'Twice named' (${first.id}); -c 'Twice named' will ask for an id`);
    const ambiguous = await u.run(['docs', 'list', '-c', 'Twice named']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/2 collections are named 'Twice named'/);
  });

  it('needs the project id to create a collection and says where to find it', async () => {
    const u = user({ SERVICE_PROJECT_ID: undefined });
    const r = await u.run(['collections', 'create', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--project.*SERVICE_PROJECT_ID.*config set project_id/);
  });
});

describe.concurrent('provider keys', () => {
  it('sets a key read from stdin, lists it by preview only, and deletes it', async () => {
    const u = user();
    const secret = 'sk-ant-api03-cliTESTkey0123456789';
    const set = await u.run(['provider-keys', 'set', 'anthropic', '--name', 'From the CLI', '--json'], { input: `${secret}\n` });
    expect(set.code, set.stderr).toBe(0);
    const key = JSON.parse(set.stdout);
    expect(key).toMatchObject({ provider: 'provider_a', name: 'From the CLI', keyPreview: 'sk-a…6789' });
    const list = await u.run(['provider-keys', 'list']);
    expect(list.stdout).toMatch(new RegExp(`^${key.id} +provider_a +From the CLI +sk-a…6789`, 'm'));
    expect(list.stdout + set.stdout).not.toContain(secret);
    expect((await u.run(['provider-keys', 'delete', key.id])).code).toBe(0);
    expect((await u.run(['provider-keys', 'delete', key.id])).code).toBe(3);
  });
});

describe.concurrent('exit codes of failed requests', () => {
  it('exits 3 for a document or collection that does not exist', async () => {
    const u = user();
    const doc = await u.run(['docs', 'get', '00000000-0000-4000-8000-000000000000']);
    expect(doc.code).toBe(3);
    expect(doc.stderr).toMatch(/not found.*HTTP 404/i);
    expect((await u.run(['query', 'x', '-c', '00000000-0000-4000-8000-000000000000'])).code).toBe(3);
  });

  it('docs markdown of a missing document points at `docs list`, and says so when a file name was given for the id', async () => {
    const u = user();
    const missing = await u.run(['docs', 'markdown', '00000000-0000-4000-8000-000000000000']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('dossier docs list');
    expect(missing.stderr).not.toContain('docs wait'); // the document does not exist: waiting would not help
    const byName = await u.run(['docs', 'markdown', 'report.md']);
    expect(byName.code).toBe(3);
    expect(byName.stderr).toContain("'report.md' is not a document id (ids are UUIDs)");
    expect(byName.stderr).toContain('dossier docs list');
  });

  it('exits 5 when the key is rejected, saying to check SERVICE_API_KEY', async () => {
    const r = await user({ SERVICE_API_KEY: 'dsk_live_thisKeyDoesNotExistAnywhere00' }).run(['collections', 'list']);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('the API key was rejected');
    expect(r.stderr).toContain('check SERVICE_API_KEY or --api-key');
  });

  it('exits 1 when the server refuses the request, with its message', async () => {
    const u = user();
    const col = await t.createCollection({ name: 'Refusals' });
    const r = await u.run(['collections', 'update', col.id, '--visibility', 'secret']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/visibility.*HTTP 400/);
  });
});

describe.concurrent('upload', () => {
  it('expands a glob itself, skips hidden files, waits with --wait, and parses --metadata values as JSON', async () => {
    const u = user();
    const col = await t.createCollection({ name: 'Globbed' });
    const r = await u.run([
      'upload',
      join(files, 'tree', '**', '*.md'),
      '-c',
      col.id,
      '--wait',
      '--json',
      '--tag',
      'Glob',
      '--metadata',
      'year=2024',
      '--metadata',
      'x=foo',
      '--metadata',
      'o={"a":1}',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const events = ndjson(r.stdout);
    expect(
      events
        .filter((e) => e.type === 'uploaded')
        .map((e) => e.filename)
        .sort(),
    ).toEqual(['a.md', 'b.md']);
    const done = events.filter((e) => e.type === 'done');
    expect(done).toHaveLength(2);
    for (const e of done) expect(e.document).toMatchObject({ status: 'ready', tags: ['glob'], metadata: { year: 2024, x: 'foo', o: { a: 1 } } });
    const id = (done[0]!.document as { id: string }).id;
    const got = JSON.parse((await u.run(['docs', 'get', id, '--json'])).stdout);
    expect(got.metadata).toEqual({ year: 2024, x: 'foo', o: { a: 1 } });
    const listTagged = async (...flags: string[]) => JSON.parse((await u.run(['docs', 'list', '-c', col.id, '--json', ...flags])).stdout).total;
    expect(await listTagged('--tag', 'GLOB')).toBe(2);
    expect(await listTagged('--tag', 'glob', '--tag', 'other')).toBe(0);
    expect(await listTagged('--any-tag', 'other', '--any-tag', 'glob')).toBe(2);
  });

  it('uploads a folder recursively, and prints a table when not asked for JSON', async () => {
    const u = user();
    const col = await t.createCollection({ name: 'Folder' });
    const r = await u.run(['upload', join(files, 'tree'), '-c', col.id, '--concurrency', '2']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^FILE +DOCUMENT +STATUS/m);
    for (const f of ['a.md', 'sub/b.md', 'sub/c.txt']) expect(r.stdout).toContain(join(files, 'tree', f));
    expect(r.stdout).not.toContain('.hidden.md');
    expect(r.stderr).toMatch(/3 uploaded/);
    expect(JSON.parse((await u.run(['docs', 'list', '-c', col.id, '--json'])).stdout).total).toBe(3);
  });

  it('keeps UTF-8 file names through upload (hash-checked and --force direct) and docs list, showing bidi controls escaped', async () => {
    const u = user();
    const dir = join(files, 'unicode');
    mkdirSync(dir, { recursive: true });
    const names = ['Résumé 日本.md', '報告書 📈.txt', 'invoice \u202Egpj.md'];
    for (const [i, name] of names.entries()) writeFileSync(join(dir, name), `# ${i}\n\nfile ${name}\n`);
    for (const args of [[], ['--force']]) {
      const col = await t.createCollection({ name: `Unicode ${args.join('')}` });
      const r = await u.run(['upload', dir, '-c', col.id, '--wait', '--json', ...args]);
      expect(r.code, r.stderr).toBe(0);
      const done = ndjson(r.stdout).filter((e) => e.type === 'done');
      expect(done.map((e) => (e.document as { filename: string }).filename).sort()).toEqual([...names].sort());
      const listed = JSON.parse((await u.run(['docs', 'list', '-c', col.id, '--json'])).stdout).documents.map((d: { filename: string }) => d.filename);
      expect(listed.sort()).toEqual([...names].sort());
      const table = (await u.run(['docs', 'list', '-c', col.id])).stdout;
      expect(table).toContain('Résumé 日本.md');
      expect(table).toContain('invoice <U+202E>gpj.md');
      expect(table).not.toContain('\u202E');
    }
  });

  it('reads stdin when given -, named by --filename', async () => {
    const u = user();
    const col = await t.createCollection({ name: 'Stdin' });
    const r = await u.run(['upload', '-', '--filename', 'notes.md', '-c', col.id, '--wait', '--json'], { input: '# Notes\n\nPiped in from stdin.\n' });
    expect(r.code, r.stderr).toBe(0);
    const done = ndjson(r.stdout).find((e) => e.type === 'done')!;
    expect(done).toMatchObject({ file: '-', filename: 'notes.md', document: { filename: 'notes.md', status: 'ready' } });
    const md = await u.run(['docs', 'markdown', (done.document as { id: string }).id]);
    expect(md.stdout).toContain('Piped in from stdin.');
  });

  it('--watch streams status events until every document is terminal, and exits 1 when one ends in error', async () => {
    const u = user();
    const col = await t.createCollection({ name: 'Watched' });
    const r = await u.run(['upload', join(files, 'report.md'), join(files, 'broken.pdf'), '-c', col.id, '--watch', '--json']);
    expect(r.code, r.stderr).toBe(1);
    const events = ndjson(r.stdout);
    const done = Object.fromEntries(
      events.filter((e) => e.type === 'done').map((e) => [e.filename, e.document as { status: string; id: string; errorMessage: string | null }]),
    );
    expect(done['report.md']).toMatchObject({ status: 'ready' });
    expect(done['broken.pdf']).toMatchObject({ status: 'error', errorMessage: expect.any(String) });
    const reportStatuses = events.filter((e) => e.type === 'status' && e.documentId === done['report.md']!.id).map((e) => e.status);
    expect(reportStatuses.at(-1)).toBe('ready');
    expect(reportStatuses).toContain('sectioned');
    // the last event of each document comes after all its status events
    expect(events.findIndex((e) => e.type === 'done')).toBeGreaterThan(events.findLastIndex((e) => e.type === 'status'));
  });

  it('skips files whose content the collection already holds, says how many, and uploads them again with --force (issue 12)', async () => {
    const u = user();
    const col = await t.createCollection({ name: 'Re-uploads' });
    const tree = join(files, 'tree');
    const first = await u.run(['upload', tree, '-c', col.id, '--wait', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const sent = ndjson(first.stdout).filter((e) => e.type === 'uploaded');
    expect(sent).toHaveLength(3);
    for (const e of sent) expect(e).toMatchObject({ via: 'presigned' });
    const again = await u.run(['upload', tree, join(files, 'report.md'), '-c', col.id]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/^1 uploaded, 3 skipped \(same content already in the collection; --force uploads them again\)/m);
    expect(again.stdout).toMatch(/a\.md +\S+ +skipped .*same content already in the collection/);
    const json = ndjson((await u.run(['upload', join(tree, 'a.md'), '-c', col.id, '--json'])).stdout);
    expect(json).toEqual([
      expect.objectContaining({
        type: 'skipped',
        filename: 'a.md',
        reason: 'same content already in the collection',
        document: expect.objectContaining({ id: (sent.find((e) => e.filename === 'a.md')!.document as { id: string }).id }),
      }),
    ]);
    const forced = await u.run(['upload', join(tree, 'a.md'), '-c', col.id, '--force', '--json']);
    expect(ndjson(forced.stdout)).toEqual([expect.objectContaining({ type: 'uploaded', filename: 'a.md', via: 'direct' })]);
    expect(JSON.parse((await u.run(['docs', 'list', '-c', col.id, '--json'])).stdout).total).toBe(5);
  });

  it('stops with exit 2 on a path that does not exist, before uploading anything', async () => {
    const u = user();
    const col = await t.createCollection({ name: 'Nothing' });
    const r = await u.run(['upload', join(files, 'report.md'), join(files, 'missing.md'), '-c', col.id]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no such file or folder');
    expect((await t.request('GET', `/v1/collections/${col.id}/documents`)).body.total).toBe(0);
  });
});

describe.concurrent('reading: query, scan, docs', () => {
  let col: string;
  let docId: string;
  beforeAll(async () => {
    col = (await t.createCollection({ name: 'Reading' })).id;
    docId = (await t.ingest(col, 'report.md', REPORT)).id;
  });

  it('query returns ranked chunks with provenance (--json shape, and a human view)', async () => {
    const u = user();
    const r = await u.run(['query', 'revenue', 'grew', '-c', col, '--limit', '3', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const hits = JSON.parse(r.stdout);
    expect(hits.length).toBeGreaterThan(0);
    expect(Object.keys(hits[0]).sort()).toEqual(['chunk', 'document', 'foundBy', 'score', 'section', 'span']);
    expect(hits[0]).toMatchObject({ document: { id: docId, filename: 'report.md' }, section: { title: 'Revenue' } });
    const human = await u.run(['query', 'revenue', '-c', col]);
    expect(human.stdout).toMatch(/^ {1}1 {2}\d+\.\d{4} {2}report\.md › Revenue$/m);
  });

  it('scan returns sections with their documents', async () => {
    const r = await user().run(['scan', 'costs', '-c', col, '--json']);
    const { results } = JSON.parse(r.stdout);
    expect(results[0]).toMatchObject({ section: { title: 'Costs' }, document: { filename: 'report.md' } });
  });

  it('docs sections, chunks (of a document or a section), markdown and wait', async () => {
    const u = user();
    const sections = JSON.parse((await u.run(['docs', 'sections', docId, '--json'])).stdout);
    expect(sections.map((s: { title: string }) => s.title)).toEqual(['Annual report', 'Revenue', 'Costs']);
    const all = JSON.parse((await u.run(['docs', 'chunks', docId, '--json'])).stdout);
    expect(all.map((g: { section: { title: string } }) => g.section.title)).toEqual(['Annual report', 'Revenue', 'Costs']);
    expect(all[1].chunks[0].content).toContain('Revenue grew 12 percent');
    const one = JSON.parse((await u.run(['docs', 'chunks', '--section', sections[2].id, '--json'])).stdout);
    expect(one[0].content).toContain('Costs fell');
    expect((await u.run(['docs', 'markdown', docId])).stdout).toBe(`${(await t.request('GET', `/v1/documents/${docId}/markdown`)).body}`.replace(/\n?$/, '\n'));
    const waited = JSON.parse((await u.run(['docs', 'wait', docId, '--json'])).stdout);
    expect(waited).toMatchObject({ id: docId, status: 'ready' });
  });

  it('doctor passes against a running server', async () => {
    const r = await user().run(['doctor']);
    expect(r.code, r.stdout).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.map((l) => l.split(' ')[1])).toEqual(['config', 'API', 'base', 'DNS', 'TLS', 'API', 'telemetry']);
    for (const l of lines) expect(l).toMatch(/^[✓-] /);
  });

  it('doctor does not tick a config file that does not exist yet, and ticks it once `config set` wrote it (issue 12)', async () => {
    const u = user();
    const before = JSON.parse((await u.run(['doctor', '--json'])).stdout);
    expect(before.checks[0]).toMatchObject({ name: 'config file', status: 'skip', detail: expect.stringMatching(/does not exist yet; defaults apply/) });
    expect(before.ok).toBe(true);
    expect((await u.run(['config', 'set', 'output', 'human'])).code).toBe(0);
    const after = JSON.parse((await u.run(['doctor', '--json'])).stdout);
    expect(after.checks[0]).toMatchObject({ name: 'config file', status: 'pass' });
  });
});
