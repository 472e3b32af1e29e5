import { chunkDocument, type ChunkInput } from '@dossier/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChunkingPool } from '../src/pool/chunk-pool.ts';

const utf8 = (s: string) => new TextEncoder().encode(s);

describe('the chunking pool', () => {
  let pool: Awaited<ReturnType<typeof createChunkingPool>>;
  beforeAll(async () => {
    pool = await createChunkingPool({ timeoutMs: 60_000 });
  });
  afterAll(async () => {
    await pool?.close();
  });

  it('returns what chunking inline returns, and leaves the caller its Markdown bytes', async () => {
    const md = `# Title\n\n${'A sentence of ordinary words. '.repeat(300)}\n\n# Table\n\n| k | v |\n|---|---|\n${'| key | value |\n'.repeat(200)}`;
    const split = md.indexOf('# Table');
    const input: ChunkInput = {
      documentId: 'd',
      markdown: utf8(md),
      sections: [
        { id: 'a', position: 0, start: 0, end: split },
        { id: 'b', position: 1, start: split, end: md.length },
      ],
      chunkSize: 128,
      chunkOverlap: 16,
    };
    const fromPool = await pool.run(input);
    expect(fromPool).toEqual(chunkDocument(input));
    expect(fromPool.length).toBeGreaterThan(5);
    expect(input.markdown.byteLength).toBe(utf8(md).byteLength);
  });

  it('chunks a 2 MB line without a space (one enormous BPE word) in bounded time', async () => {
    const letters = Array.from({ length: 2 * 1024 * 1024 }, (_, i) => String.fromCharCode(97 + ((i * 7919) % 26))).join('');
    const chunks = await pool.run({
      documentId: 'big',
      markdown: utf8(letters),
      sections: [{ id: 's', position: 0, start: 0, end: letters.length }],
      chunkSize: 512,
      chunkOverlap: 0,
    });
    expect(chunks.length).toBeGreaterThan(100);
    expect(chunks.every((c) => c.tokenCount <= 512)).toBe(true);
  }, 120_000);

  it('stops a task past its time limit with a message that says so', async () => {
    const slow = await createChunkingPool({ timeoutMs: 50 });
    try {
      const text = 'word '.repeat(2_000_000);
      await expect(
        slow.run({ documentId: 'x', markdown: utf8(text), sections: [{ id: 's', position: 0, start: 0, end: text.length }], chunkSize: 64, chunkOverlap: 8 }),
      ).rejects.toMatchObject({ code: 'conversion_failed', message: expect.stringMatching(/Chunking took longer than/) });
    } finally {
      await slow.close();
    }
  }, 60_000);
});
