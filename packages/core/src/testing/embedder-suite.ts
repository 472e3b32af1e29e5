import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMBEDDER_SPEC_VERSION } from '../ports/embedder.ts';
import type { Embedder } from '../ports/embedder.ts';

const TEXTS = [
  'The cat sat on the warm windowsill.',
  'Quarterly revenue grew by twelve percent.',
  'Mitochondria are the powerhouse of the cell.',
  'How do I reset my password?',
];

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! ** 2;
    nb += b[i]! ** 2;
  }
  return dot / (Math.sqrt(na * nb) || 1);
}

function expectVector(v: Float32Array | undefined, dimension: number): void {
  expect(v).toBeInstanceOf(Float32Array);
  expect(v!.length).toBe(dimension);
  expect(v!.every(Number.isFinite)).toBe(true);
  expect(v!.some((x) => x !== 0)).toBe(true);
}

/**
 * Conformance suite for Embedder adapters. `factory` is called once for the suite; the suite closes it.
 * Numerical comparisons allow for batch-dependent rounding in real models (cosine ≥ 0.999).
 */
export function embedderSuite(name: string, factory: () => Promise<Embedder>): void {
  describe(`Embedder conformance (spec ${EMBEDDER_SPEC_VERSION}): ${name}`, () => {
    let embedder: Embedder;
    beforeAll(async () => {
      embedder = await factory();
    });
    afterAll(async () => {
      await embedder?.close();
    });

    shapeTests(() => embedder);
    stabilityTests(() => embedder);
  });
}

function shapeTests(get: () => Embedder): void {
  it('declares a model id, a positive dimension and a positive batch size', () => {
    expect(get().model).toEqual(expect.any(String));
    expect(get().model.length).toBeGreaterThan(0);
    expect(Number.isInteger(get().dimension) && get().dimension > 0).toBe(true);
    expect(Number.isInteger(get().maxBatchSize) && get().maxBatchSize > 0).toBe(true);
  });

  it('returns one vector of the declared dimension per document', async () => {
    const vectors = await get().embedDocuments(TEXTS);
    expect(vectors).toHaveLength(TEXTS.length);
    for (const v of vectors) expectVector(v, get().dimension);
  });

  it('returns an empty list for an empty batch', async () => {
    expect(await get().embedDocuments([])).toEqual([]);
  });

  it('returns a query vector of the declared dimension', async () => {
    expectVector(await get().embedQuery('what do cats like?'), get().dimension);
  });

  it('embeds a full batch of maxBatchSize documents (capped at 32 for speed)', async () => {
    const n = Math.min(get().maxBatchSize, 32);
    const texts = Array.from({ length: n }, (_, i) => `document number ${i} about topic ${i % 7}`);
    const vectors = await get().embedDocuments(texts);
    expect(vectors).toHaveLength(n);
    for (const v of vectors) expectVector(v, get().dimension);
  });
}

function stabilityTests(get: () => Embedder): void {
  it('keeps input order: each vector in a batch matches that text embedded alone', async () => {
    const batch = await get().embedDocuments(TEXTS);
    for (const [i, t] of TEXTS.entries()) {
      const [alone] = await get().embedDocuments([t]);
      expect(cosine(batch[i]!, alone!)).toBeGreaterThan(0.999);
    }
    expect(cosine(batch[0]!, batch[1]!)).toBeLessThan(0.999);
  });

  it('is deterministic for the same input', async () => {
    const [a] = await get().embedDocuments([TEXTS[2]!]);
    const [b] = await get().embedDocuments([TEXTS[2]!]);
    expect(cosine(a!, b!)).toBeGreaterThan(0.9999);
    const q1 = await get().embedQuery('same query');
    const q2 = await get().embedQuery('same query');
    expect(cosine(q1, q2)).toBeGreaterThan(0.9999);
  });

  it('gives different texts different vectors', async () => {
    const [a, b] = await get().embedDocuments(['apples and oranges', 'tax law in the eighteenth century']);
    expect(cosine(a!, b!)).toBeLessThan(0.999);
  });
}
