import { createHash } from 'node:crypto';
import type { ContextPart } from '../context.ts';
import type { ClaimMapItem, ClaimRecord } from '../domain/claims.ts';
import type { Collection } from '../domain/types.ts';
import { normalise, type SparseVector, tfidfVectors } from './text-vectors.ts';

/** Width the claim vectors are randomly projected to before PCA, so the projection costs O(claims × 64²). */
const PROJECTED_WIDTH = 64;
const EMBED_BATCH = 64;

/** Progress callback: 0–100. */
export type MapProgress = (pct: number) => void;

/** The version of a set of claims: any extraction, recompute or deletion changes it. */
export const claimsVersion = (claims: ClaimRecord[]): string =>
  createHash('sha256')
    .update(claims.map((claim) => claim.id).join(','))
    .digest('hex')
    .slice(0, 32);

/** A deterministic ±1 random projection (Achlioptas) of a coordinate: seeded by the coordinate and output axis. */
function sign(coordinate: number, axis: number): number {
  let hash = Math.imul(coordinate + 1, 0x9e3779b1) ^ Math.imul(axis + 1, 0x85ebca6b);
  hash ^= hash >>> 15;
  hash = Math.imul(hash, 0xc2b2ae35);
  return (hash ^ (hash >>> 13)) & 1 ? 1 : -1;
}

function projectEntries(entries: Iterable<[number, number]>): number[] {
  const row = new Array<number>(PROJECTED_WIDTH).fill(0);
  for (const [coordinate, value] of entries) for (let axis = 0; axis < PROJECTED_WIDTH; axis++) row[axis]! += sign(coordinate, axis) * value;
  return row;
}

/** Embeddings of the claims with the collection's model, or null when it is lexical-only or unavailable. */
export async function embedClaims(
  ctx: ContextPart<'embedders'>,
  collection: Collection,
  texts: string[],
  progress: MapProgress,
): Promise<Float32Array[] | null> {
  if (collection.embeddingModel === 'none') return null;
  const embedder = await ctx.embedders.get(collection.embeddingModel);
  if (!embedder) return null;
  const vectors: Float32Array[] = [];
  const batch = Math.max(1, Math.min(EMBED_BATCH, embedder.maxBatchSize));
  for (let start = 0; start < texts.length; start += batch) {
    vectors.push(...(await embedder.embedDocuments(texts.slice(start, start + batch))).map(normalise));
    progress(5 + Math.round((75 * Math.min(texts.length, start + batch)) / texts.length));
  }
  return vectors;
}

/** 2-D coordinates: random projection to 64 dimensions, then the first two principal components (ml-pca). */
async function coordinates(rows: number[][]): Promise<[number, number][]> {
  if (rows.length === 0) return [];
  if (rows.length < 3) return rows.map((_, index) => [index, 0]);
  const { PCA } = await import('ml-pca'); // loaded by the first claim map, not by every process start (issue 41)
  const pca = new PCA(rows, { center: true, scale: false });
  const projected = pca.predict(rows, { nComponents: 2 }).to2DArray();
  return projected.map((point) => [round(point[0] ?? 0), round(point[1] ?? 0)]);
}

const round = (value: number): number => Math.round(value * 1e4) / 1e4;

/**
 * Claim map of a collection: each claim's vector (the collection's embeddings, or TF-IDF when it is lexical-only)
 * projected to 2-D. Work is yielded between batches; the caller caches the result per claims version.
 */
export async function computeClaimMap(
  ctx: ContextPart<'embedders'>,
  collection: Collection,
  claims: ClaimRecord[],
  documentNames: Map<string, string>,
  progress: MapProgress,
): Promise<ClaimMapItem[]> {
  const texts = claims.map((claim) => claim.text);
  const dense = await embedClaims(ctx, collection, texts, progress);
  const sparse: SparseVector[] = dense ? [] : tfidfVectors(texts).vectors;
  const rows: number[][] = [];
  for (let index = 0; index < claims.length; index++) {
    if (index % 512 === 511) await new Promise((resolve) => setImmediate(resolve));
    const vector = dense?.[index];
    rows.push(projectEntries(vector ? [...vector.entries()] : (sparse[index] ?? new Map()).entries()));
  }
  progress(85);
  const points = await coordinates(rows);
  return claims.map((claim, index) => ({
    id: claim.id,
    text: claim.text,
    sourceText: claim.sourceText,
    documentId: claim.documentId,
    documentName: documentNames.get(claim.documentId) ?? '',
    sectionId: claim.sectionId,
    sectionTitle: claim.sectionTitle,
    importance: claim.importance,
    x: points[index]?.[0] ?? 0,
    y: points[index]?.[1] ?? 0,
  }));
}
