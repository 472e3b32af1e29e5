/**
 * Issue 43: `syncFolder` (what `dossier sync` runs) of 10,000 small files against a real server process with its
 * default limits (6,000 requests a minute per key): the first sync, a re-sync with nothing changed, then one with
 * 1 % of the files changed and 1 % deleted. Prints one Markdown table row per step.
 *
 *   node --import tsx bench/sync/sync-10k.ts [--files 10000]
 */
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ApiClient, type SyncResult, syncFolder } from '../../packages/cli/src/index.ts';
import { readManifest } from '../../packages/cli/src/sync/plan.ts';
import { scanFolder } from '../../packages/cli/src/sync/local.ts';
import { bootstrapCredentials, startServer } from '../../test/server-process.ts';

const { values } = parseArgs({ options: { files: { type: 'string', default: '10000' } } });
const FILES = Number(values.files);
const WORDS = ['river', 'lantern', 'granite', 'orchard', 'compass', 'harbour', 'meadow', 'falcon', 'copper', 'thistle'];

function writeFiles(folder: string): string[] {
  const paths: string[] = [];
  for (let i = 0; i < FILES; i++) {
    const dir = `part-${String(Math.floor(i / 500)).padStart(2, '0')}`;
    mkdirSync(join(folder, dir), { recursive: true });
    const rel = `${dir}/note-${String(i).padStart(5, '0')}.md`;
    writeFileSync(join(folder, rel), `# Note ${i}\n\nAbout the ${WORDS[i % 10]} and the ${WORDS[(i * 7) % 10]}, number ${i}.\n`);
    paths.push(rel);
  }
  return paths;
}

async function readyCount(api: ApiClient, cid: string): Promise<{ ready: number; total: number }> {
  const s = await api.json<{ docCount: number; statusCounts: Record<string, number> }>('GET', `/collections/${cid}/stats`);
  return { ready: s.statusCounts.ready ?? 0, total: s.docCount };
}

/** Wait until every document of the collection is ready (or the expected count is reached). */
async function untilReady(api: ApiClient, cid: string, expected: number): Promise<void> {
  for (;;) {
    const { ready, total } = await readyCount(api, cid);
    if (ready === expected && total === expected) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function step(name: string, api: ApiClient, cid: string, folder: string, expected: number, del = false): Promise<void> {
  let requests = 0;
  const started = performance.now();
  const r: SyncResult = await syncFolder({
    api,
    collection: cid,
    folder,
    delete: del,
    attempt: (request) => {
      requests++;
      return request();
    },
  });
  const synced = performance.now() - started;
  await untilReady(api, cid, expected);
  const ready = performance.now() - started;
  const counts = `${r.added} / ${r.replaced} / ${r.deleted} / ${r.unchanged} / ${r.failed}`;
  console.log(`| ${name} | ${(synced / 1000).toFixed(2)} s | ${(ready / 1000).toFixed(2)} s | ${requests} | ${counts} |`);
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dossier-sync-bench-'));
  const folder = mkdtempSync(join(tmpdir(), 'dossier-sync-files-'));
  const server = await startServer(dataDir, ['--workers', '64']);
  try {
    const creds = bootstrapCredentials(dataDir);
    const api = new ApiClient(`${server.url}/v1`, creds.live_api_key!);
    const { id: cid } = await api.json<{ id: string }>('POST', '/collections', { json: { projectId: creds.project_id, name: 'sync bench' } });
    const paths = writeFiles(folder);
    console.log(`${FILES} files of 60–80 bytes, server process with default limits, --workers 64\n`);
    console.log('| step | sync returned | all ready | upload/delete requests | added / updated / deleted / unchanged / failed |');
    console.log('|---|---|---|---|---|');
    await step('first sync', api, cid, folder, FILES);
    const parts = performance.now();
    const manifest = await readManifest(api, cid);
    const manifestMs = performance.now() - parts;
    await scanFolder(folder);
    console.log(
      `| (parts of a re-sync) manifest of ${manifest.length} entries read | ${(manifestMs / 1000).toFixed(2)} s | folder scanned and hashed | ${((performance.now() - parts - manifestMs) / 1000).toFixed(2)} s | |`,
    );
    await step('re-sync, nothing changed', api, cid, folder, FILES);
    const onePercent = Math.round(FILES / 100);
    for (let i = 0; i < onePercent; i++) writeFileSync(join(folder, paths[i * 2]!), `# Changed ${i}\n\nThe thistle moved to the harbour, ${i}.\n`);
    for (let i = 0; i < onePercent; i++) unlinkSync(join(folder, paths[i * 2 + 1]!));
    await step('1 % changed, 1 % deleted (--delete)', api, cid, folder, FILES - onePercent, true);
  } finally {
    server.proc.kill('SIGTERM');
    rmSync(folder, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
