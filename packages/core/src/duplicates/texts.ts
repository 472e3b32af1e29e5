import type { DossierContext } from '../context.ts';
import type { DocumentRecord } from '../domain/types.ts';
import { fingerprintsOf, shingleSet } from './fingerprints.ts';

/** Documents this short (in shingles) index every shingle, so that short texts still find each other. */
const INDEX_ALL_BELOW = 24;

/** A document's shingles, read from its Markdown. */
export async function shinglesOf(ctx: DossierContext, doc: DocumentRecord): Promise<Uint32Array> {
  if (!doc.markdownStorageKey) return new Uint32Array();
  return shingleSet(new TextDecoder().decode(await ctx.blobs.get(doc.markdownStorageKey)));
}

/** What a document is found by in the fingerprint index. */
export const indexedFingerprints = (shingles: Uint32Array): number[] => (shingles.length <= INDEX_ALL_BELOW ? [...shingles] : fingerprintsOf(shingles));

/** Shingle sets by document id, read once and kept while in use (bounded). */
export class ShingleCache {
  private readonly entries = new Map<string, Uint32Array>();
  constructor(private readonly ctx: DossierContext, private readonly capacity = 2_000) {}

  async get(doc: DocumentRecord): Promise<Uint32Array> {
    const hit = this.entries.get(doc.id);
    if (hit) return hit;
    const shingles = await shinglesOf(this.ctx, doc);
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(doc.id, shingles);
    return shingles;
  }
}
