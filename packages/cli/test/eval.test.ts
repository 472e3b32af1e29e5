import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dossierContext, isClaimExtraction, recordClaimsTurn, ScriptedModel, scriptedResolver } from '@dossier/core/testing';
import { dossier, startTestServer, type TestServer, tempHome } from './helpers.ts';

let t: TestServer;
let cid: string;
let home: { home: string; cleanup: () => void };

beforeAll(async () => {
  t = await startTestServer();
  cid = (await t.createCollection({ name: 'Eval', queryExpansion: 'none' })).id;
  await t.ingest(cid, 'tides.md', '# Tides\n\nTides decide when large ships may enter the harbour.\n');
  await t.ingest(cid, 'glaciers.md', '# Glaciers\n\nGlaciers carve valleys slowly over thousands of years.\n');
  home = tempHome();
});
afterAll(async () => {
  home?.cleanup();
  await t?.close();
});

const run = (args: string[]) => dossier(home.home, [...args, '-c', cid], { env: { SERVICE_BASE_URL: t.url, SERVICE_API_KEY: t.liveKey } });

describe('dossier eval', () => {
  it('imports BEIR files, runs the set with a table and its misses, lists, shows and compares runs', async () => {
    const queries = join(home.home, 'queries.jsonl');
    const qrels = join(home.home, 'qrels.tsv');
    writeFileSync(queries, '{"_id": "1", "text": "when may ships enter the harbour"}\n{"_id": "2", "text": "glaciers carve valleys"}\n');
    writeFileSync(qrels, 'query-id\tcorpus-id\tscore\n1\ttides\t1\n2\ttides\t1\n');
    const imported = await run(['eval', 'import', 'tiny', '--queries', queries, '--qrels', qrels, '--json']);
    expect(imported.code, imported.stderr).toBe(0);
    const set = JSON.parse(imported.stdout);
    expect(set).toMatchObject({ name: 'tiny', queryCount: 2, matchBy: 'filename' });
    expect(t.logged.filter((l) => l.msg === 'request' && l.route === '/v1/collections/:id/golden-sets/upload' && l.status === 201)).toHaveLength(1);

    const first = await run(['eval', 'run', set.id]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/nDCG@10/);
    expect(first.stdout).toMatch(/1 of 2 queries below nDCG@10 1/);
    expect(first.stdout).toMatch(/2: glaciers carve valleys/);

    const second = JSON.parse((await run(['eval', 'run', set.id, '--query-expansion', 'rm3', '--limit', '5', '--json'])).stdout);
    expect(second.settings).toMatchObject({ queryExpansion: 'rm3', limit: 5 });
    const listed = JSON.parse((await run(['eval', 'runs', '--json'])).stdout);
    expect(listed).toHaveLength(2);
    const shown = await run(['eval', 'show', second.id]);
    expect(shown.stdout).toContain(second.id);
    const compared = await run(['eval', 'compare', listed[1].id, second.id]);
    expect(compared.code, compared.stderr).toBe(0);
    expect(compared.stdout).toMatch(/delta: nDCG@10 [+-]\d\.\d{4}/);
    const sets = await run(['eval', 'sets']);
    expect(sets.stdout).toContain('tiny');
  });

  it('waits for a run tried on a shadow copy (chunking), showing its progress, and exits 1 when it fails', async () => {
    const env = { SERVICE_BASE_URL: t.url, SERVICE_API_KEY: t.liveKey, DOSSIER_EVAL_POLL_MS: '50' };
    const shadowRun = (args: string[]) => dossier(home.home, [...args, '-c', cid], { env });
    const set = JSON.parse((await shadowRun(['eval', 'sets', '--json'])).stdout)[0];
    const waited = await shadowRun(['eval', 'run', set.id, '--chunk-size', '64', '--chunk-overlap', '0']);
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stderr).toMatch(/queued: chunking or the embedding model is tried on a shadow copy/);
    expect(waited.stdout).toMatch(/shadow: chunks 64\/0, none/);
    expect(waited.stdout).toMatch(/nDCG@10/);
    const json = JSON.parse((await shadowRun(['eval', 'run', set.id, '--chunk-size', '96', '--json'])).stdout);
    expect(json).toMatchObject({ status: 'completed', settings: { chunkSize: 96, shadow: true } });
    expect(json.metrics.queries).toBe(2);

    const index = dossierContext(t.server.dossier).index;
    const upsert = index.upsertChunks.bind(index);
    index.upsertChunks = async (id, rows, opts) => (id.startsWith('shadow-') ? Promise.reject(new Error('disk full')) : upsert(id, rows, opts));
    try {
      const failed = await shadowRun(['eval', 'run', set.id, '--chunk-size', '128']);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toMatch(/evaluation run \S+ failed: Internal error while evaluating on a shadow copy/);
    } finally {
      index.upsertChunks = upsert;
    }
    expect((await shadowRun(['eval', 'run', set.id, '--chunk-overlap', '9999'])).code).toBe(2);
  });

  it('refuses bad flags and unknown ids', async () => {
    expect((await run(['eval', 'run', 'x', '--query-expansion', 'bm25'])).code).not.toBe(0);
    expect((await run(['eval', 'import', 'x'])).code).not.toBe(0);
    const badQrels = join(home.home, 'bad.tsv');
    writeFileSync(badQrels, '1\ttides\t1\n2\ttides\n');
    const refused = await run(['eval', 'import', 'x', '--queries', join(home.home, 'queries.jsonl'), '--qrels', badQrels]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/qrels line 2/);
    const missing = await run(['eval', 'show', 'nope']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/not found/i);
  });

  it('proposes questions with the fast model, lists them, accepts one (edited) into a new set and rejects another', async () => {
    dossierContext(t.server.dossier).models = scriptedResolver(
      new ScriptedModel((request) => {
        if (isClaimExtraction(request)) return recordClaimsTurn([]);
        const sections = [...String(request.messages.at(-1)?.content ?? '').matchAll(/^## Section (\d+):/gm)].map((m) => Number(m[1]));
        return {
          toolCalls: [{ name: 'record_questions', arguments: { questions: sections.map((section) => ({ section, question: `Question ${section}?` })) } }],
        };
      }),
    );
    const proposed = await run(['eval', 'propose', '--count', '2']);
    expect(proposed.code, proposed.stderr).toBe(0);
    expect(proposed.stdout).toMatch(/Question 1\?/);
    expect(proposed.stdout + proposed.stderr).toMatch(/nothing is scored yet/);
    const listed = JSON.parse((await run(['eval', 'proposals', '--status', 'proposed', '--json'])).stdout) as { id: string }[];
    expect(listed).toHaveLength(2);
    const accepted = JSON.parse((await run(['eval', 'accept', listed[0]!.id, '--name', 'drafted', '--question', 'Edited?', '--json'])).stdout);
    expect(accepted.set).toMatchObject({ name: 'drafted', version: 1, queries: [{ query: 'Edited?' }] });
    const rejected = await run(['eval', 'reject', listed[1]!.id]);
    expect(rejected.code, rejected.stderr).toBe(0);
    expect((await run(['eval', 'accept', listed[1]!.id, '--name', 'x'])).stderr).toMatch(/rejected already/);
    expect((await run(['eval', 'accept', listed[1]!.id])).code).not.toBe(0);
    expect(
      JSON.parse((await run(['eval', 'proposals', '--json'])).stdout)
        .map((p: { status: string }) => p.status)
        .sort(),
    ).toEqual(['accepted', 'rejected']);
  });
});
