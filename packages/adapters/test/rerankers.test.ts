import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCrossEncoderReranker } from '../src/rerankers/cross-encoder.ts';
import { buildReranker, parseRerankerSpec } from '../src/rerankers/spec.ts';
import { createModelProviderFactory } from '../src/providers/factory.ts';

function recordingLog() {
  const lines: { msg: string; fields?: unknown }[] = [];
  const push = (msg: string, fields?: unknown) => void lines.push({ msg, fields });
  return { lines, log: { info: push, warn: push, error: push } };
}

describe('reranker spec', () => {
  it('parses none, cross-encoder with or without a model, and llm', () => {
    expect(parseRerankerSpec('none')).toEqual({ kind: 'none' });
    expect(parseRerankerSpec('cross-encoder')).toEqual({ kind: 'cross-encoder', model: 'Xenova/ms-marco-MiniLM-L-6-v2' });
    expect(parseRerankerSpec('cross-encoder:BAAI/bge-reranker-base')).toEqual({ kind: 'cross-encoder', model: 'BAAI/bge-reranker-base' });
    expect(parseRerankerSpec('llm')).toEqual({ kind: 'llm', model: null });
    expect(parseRerankerSpec('llm:ollama:llama3.1')).toEqual({ kind: 'llm', model: 'ollama:llama3.1' });
  });

  it('rejects an unknown reranker with the accepted forms', () => {
    expect(() => parseRerankerSpec('colbert')).toThrow(/expected none, cross-encoder/);
  });
});

describe('cross-encoder reranker', () => {
  it('is null, with a log line naming the model, when its files are missing and downloads are off', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dossier-ce-'));
    const { lines, log } = recordingLog();
    const reranker = await loadCrossEncoderReranker(
      'Xenova/ms-marco-MiniLM-L-6-v2',
      { modelsDir: dir, cacheDir: join(dir, 'cache'), allowDownload: false },
      log,
    );
    expect(reranker).toBeNull();
    expect(lines).toEqual([
      {
        msg: expect.stringContaining('unavailable'),
        fields: expect.objectContaining({ model: 'Xenova/ms-marco-MiniLM-L-6-v2', reason: expect.stringContaining('downloading is disabled') }),
      },
    ]);
  });

  it('is null for an id that is not a model id', async () => {
    const { log } = recordingLog();
    expect(await loadCrossEncoderReranker('../etc/passwd', { allowDownload: false }, log)).toBeNull();
  });
});

describe('llm reranker from the managed providers', () => {
  const deps = (providers = {}) => ({ models: { allowDownload: false }, providers, factory: createModelProviderFactory(), ...recordingLog() });

  it('is null with a log line when no model and no managed key are configured', async () => {
    const d = deps();
    expect(await buildReranker({ kind: 'llm', model: null }, d)).toBeNull();
    expect(d.lines[0]?.msg).toContain('unavailable');
  });

  it('uses the fast tier model and names it', async () => {
    const d = deps({ fastModel: 'ollama:llama3.1' });
    expect((await buildReranker({ kind: 'llm', model: null }, d))?.name).toBe('llm:llama3.1');
  });
});
