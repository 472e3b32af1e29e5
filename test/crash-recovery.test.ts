import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bootstrapCredentials, startServer } from './server-process.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions that read them
const body = async (res: Promise<Response>): Promise<any> => (await res).json();

/** A Markdown document of ten headed parts, large enough (8 MB) that each pipeline step takes seconds. */
function bigMarkdown(): string {
  const words = 'alpha beta gamma delta retrieval section chunk index vector lexical ranking fusion corpus token model'.split(' ');
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const parts: string[] = [];
  for (let s = 0; s < 10; s++) {
    parts.push(`# Part ${s}\n`);
    for (let p = 0; p < 1200; p++) parts.push(`${Array.from({ length: 100 }, () => words[Math.floor(rnd() * words.length)]).join(' ')}.\n`);
  }
  return parts.join('\n');
}

/** Read SSE events until one matches, with a bounded wait. */
async function waitForEvent(url: string, key: string, match: (e: { status: string }) => boolean): Promise<void> {
  const res = await fetch(url, { headers: { Authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(60_000) });
  const reader = res.body!.getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error('stream ended');
    buf += new TextDecoder().decode(value);
    for (const line of buf.split('\n')) if (line.startsWith('data: ') && match(JSON.parse(line.slice(6)))) return void reader.cancel();
  }
}

describe('a server killed with SIGKILL mid-ingestion', () => {
  const dirs: string[] = [];
  const procs: ChildProcess[] = [];
  afterEach(() => {
    for (const p of procs.splice(0)) p.kill('SIGKILL');
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  for (const killAt of ['processing', 'sectioned']) {
    it(`finishes the document after a restart, with no duplicate chunks, when killed while ${killAt}`, async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'dossier-crash-'));
      dirs.push(dataDir);
      let server = await startServer(dataDir);
      procs.push(server.proc);
      const creds = bootstrapCredentials(dataDir);
      const auth = { Authorization: `Bearer ${creds.live_api_key}` };
      const col = await body(fetch(`${server.url}/v1/collections`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ projectId: creds.project_id, name: 'crash' }) }));
      const reached = waitForEvent(`${server.url}/v1/collections/${col.id}/documents/events`, creds.live_api_key!, (e) => e.status === killAt);
      const form = new FormData();
      form.append('file', new Blob([bigMarkdown()]), 'big.md');
      const doc = await body(fetch(`${server.url}/v1/collections/${col.id}/documents`, { method: 'POST', headers: auth, body: form }));
      await reached;
      server.proc.kill('SIGKILL');
      await new Promise((r) => server.proc.once('exit', r));

      server = await startServer(dataDir);
      procs.push(server.proc);
      const done = await body(fetch(`${server.url}/v1/documents/${doc.id}/wait`, { headers: auth }));
      expect(done.status).toBe('ready');
      const sections = await body(fetch(`${server.url}/v1/documents/${doc.id}/sections`, { headers: auth }));
      expect(sections).toHaveLength(10);
      let total = 0;
      for (const s of sections) {
        const chunks: { id: string; position: number }[] = await body(fetch(`${server.url}/v1/sections/${s.id}/chunks`, { headers: auth }));
        expect(new Set(chunks.map((c) => c.id)).size).toBe(chunks.length);
        expect(chunks.map((c) => c.position)).toEqual(chunks.map((_, i) => i));
        expect(chunks.length).toBe(s.chunkCount);
        total += chunks.length;
      }
      expect(total).toBe(done.chunkCount);
      const stats = await body(fetch(`${server.url}/v1/collections/${col.id}/stats`, { headers: auth }));
      expect(stats.totalChunks).toBe(total);
    }, 120_000);
  }
});
