import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embedderSuite } from '@dossier/core/testing';
import { FakeEmbedder } from '@dossier/core/testing';
import { createEmbedderProvider } from '../src/embedders/provider.ts';
import { promptsFor } from '../src/embedders/prompts.ts';
import { loadOllamaEmbedder } from '../src/embedders/ollama.ts';
import type { Embedder } from '@dossier/core';

const base = await mkdtemp(join(tmpdir(), 'dossier-embedders-'));
afterAll(() => rm(base, { recursive: true, force: true }));

/** Loads a model that the test expects to exist. */
async function mustLoad(load: Promise<Embedder | null>): Promise<Embedder> {
  const e = await load;
  if (!e) throw new Error('expected the model to load');
  return e;
}

describe('transformers.js adapter (piscina pool)', () => {
  embedderSuite('builtin:hash-32 in a piscina worker', () => mustLoad(createEmbedderProvider({ allowDownload: false }).get('builtin:hash-32')));

  it('computes builtin:hash vectors in the worker identical to FakeEmbedder', async () => {
    const provider = createEmbedderProvider({ allowDownload: false, poolSize: 2 });
    const e = await mustLoad(provider.get('builtin:hash-16'));
    const fake = new FakeEmbedder({ dimension: 16 });
    const texts = ['alpha beta', 'gamma', 'delta epsilon zeta'];
    expect((await e.embedDocuments(texts)).map((v) => Array.from(v))).toEqual(texts.map((t) => Array.from(fake.vectorOf(t))));
    expect(e).toMatchObject({ model: 'builtin:hash-16', dimension: 16 });
    await provider.close();
  });

  it('returns the same embedder for repeated gets of one model', async () => {
    const provider = createEmbedderProvider({ allowDownload: false });
    const [a, b] = await Promise.all([provider.get('builtin:hash-8'), provider.get('builtin:hash-8')]);
    expect(a).not.toBeNull();
    expect(a).toBe(b);
    await provider.close();
  });

  it('returns null and logs why when a model is not on disk and downloads are off', async () => {
    const logs: string[] = [];
    const modelsDir = await mkdtemp(join(base, 'models-'));
    const provider = createEmbedderProvider({ modelsDir, cacheDir: join(base, 'cache'), allowDownload: false, log: (m) => logs.push(m) });
    expect(await provider.get('Xenova/bge-small-en-v1.5')).toBeNull();
    expect(logs).toHaveLength(1);
    expect(logs[0]).toContain('Xenova/bge-small-en-v1.5');
    expect(logs[0]).toContain(join(modelsDir, 'Xenova/bge-small-en-v1.5', 'config.json'));
    expect(logs[0]).toContain('allowDownload: false');
    await provider.close();
  });

  it('returns null and logs the loader error when a model folder has no usable files', async () => {
    const logs: string[] = [];
    const modelsDir = await mkdtemp(join(base, 'models-'));
    await mkdir(join(modelsDir, 'acme/broken-model'), { recursive: true });
    await writeFile(join(modelsDir, 'acme/broken-model/config.json'), '{}');
    const provider = createEmbedderProvider({ modelsDir, allowDownload: false, log: (m) => logs.push(m) });
    expect(await provider.get('acme/broken-model')).toBeNull();
    expect(logs[0]).toMatch(/^embedding model acme\/broken-model is unavailable: transformers.js failed to load acme\/broken-model: .*tokenizer.json/);
    await provider.close();
  });

  it('returns null for "none", for invalid ids and for bad builtin widths', async () => {
    const logs: string[] = [];
    const provider = createEmbedderProvider({ allowDownload: true, log: (m) => logs.push(m) });
    expect(await provider.get('none')).toBeNull();
    expect(await provider.get('../../etc/passwd')).toBeNull();
    expect(await provider.get('builtin:hash-0')).toBeNull();
    expect(logs).toHaveLength(2);
    expect(logs[0]).toContain('not a valid model id');
    await provider.close();
  });
});

describe('embedding prompts', () => {
  it('uses the BGE query instruction, E5 and nomic prefixes, and nothing for other models', () => {
    expect(promptsFor('Xenova/bge-small-en-v1.5')).toEqual({ query: 'Represent this sentence for searching relevant passages: ', document: '' });
    expect(promptsFor('Xenova/multilingual-e5-small')).toEqual({ query: 'query: ', document: 'passage: ' });
    expect(promptsFor('nomic-embed-text')).toEqual({ query: 'search_query: ', document: 'search_document: ' });
    expect(promptsFor('Xenova/bge-m3')).toEqual({ query: '', document: '' });
    expect(promptsFor('Xenova/all-MiniLM-L6-v2')).toEqual({ query: '', document: '' });
    expect(promptsFor('builtin:hash-32')).toEqual({ query: '', document: '' });
  });
});

/** A local server speaking Ollama's POST /api/embed; vectors come from FakeEmbedder so they depend on the text. */
function fakeOllama(models: Record<string, number>) {
  const requests: { model: string; input: string | string[] }[] = [];
  const server = createServer(async (req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== '/api/embed') return reply(404, { error: 'page not found' });
    const body = JSON.parse(await readBody(req)) as { model: string; input: string | string[] };
    requests.push(body);
    const dimension = models[body.model.replace(/:latest$/, '')];
    if (!dimension) return reply(404, { error: `model '${body.model}' not found` });
    const fake = new FakeEmbedder({ dimension });
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    reply(200, {
      model: body.model,
      embeddings: inputs.map((t) => Array.from(fake.vectorOf(t))),
      total_duration: 1,
      load_duration: 1,
      prompt_eval_count: inputs.length,
    });
  });
  return { server, requests };
}

async function readBody(req: IncomingMessage): Promise<string> {
  let s = '';
  for await (const chunk of req) s += chunk;
  return s;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('Ollama adapter at the wire', () => {
  const { server, requests } = fakeOllama({ 'nomic-embed-text': 24, 'all-minilm': 12 });
  let url = '';
  beforeAll(async () => {
    url = await listen(server);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  embedderSuite('ollama:all-minilm via the ollama client', () =>
    mustLoad(createEmbedderProvider({ allowDownload: false, ollamaBaseUrl: url }).get('ollama:all-minilm')),
  );

  it('sends the Ollama model name, the document prefix, and learns the dimension from a probe', async () => {
    const e = await loadOllamaEmbedder('nomic-embed-text', url);
    expect(e).toMatchObject({ model: 'ollama:nomic-embed-text', dimension: 24 });
    requests.length = 0;
    await e.embedDocuments(['a', 'b']);
    await e.embedQuery('q');
    expect(requests).toEqual([
      { model: 'nomic-embed-text', input: ['search_document: a', 'search_document: b'] },
      { model: 'nomic-embed-text', input: ['search_query: q'] },
    ]);
  });

  it('returns null and logs the server answer for a model Ollama does not have', async () => {
    const logs: string[] = [];
    const provider = createEmbedderProvider({ allowDownload: false, ollamaBaseUrl: url, log: (m) => logs.push(m) });
    expect(await provider.get('ollama:no-such-model')).toBeNull();
    expect(logs).toEqual([
      `embedding model ollama:no-such-model is unavailable: Ollama at ${url} refused model no-such-model (HTTP 404: model 'no-such-model' not found)`,
    ]);
  });

  it('returns null and logs that the server is unreachable when nothing listens', async () => {
    const closed = createServer();
    const deadUrl = await listen(closed);
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const logs: string[] = [];
    const provider = createEmbedderProvider({ allowDownload: false, ollamaBaseUrl: deadUrl, log: (m) => logs.push(m) });
    expect(await provider.get('ollama:nomic-embed-text')).toBeNull();
    expect(logs).toEqual([`embedding model ollama:nomic-embed-text is unavailable: Ollama at ${deadUrl} is unreachable (ECONNREFUSED)`]);
  });

  it('retries a model that was unavailable on the next get', async () => {
    const provider = createEmbedderProvider({ allowDownload: false, ollamaBaseUrl: url });
    expect(await provider.get('ollama:later')).toBeNull();
    expect(await provider.get('ollama:later')).toBeNull();
    expect(requests.filter((r) => r.model === 'later')).toHaveLength(2);
  });
});
