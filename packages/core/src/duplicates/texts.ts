import type { ContextPart } from '../context.ts';
import type { DocumentRecord } from '../domain/types.ts';
import { type DuplicateProfile, duplicateProfile } from './fingerprints.ts';

/** A document's Markdown ('' when it has none). */
export async function markdownOf(ctx: ContextPart<'blobs'>, doc: DocumentRecord): Promise<string> {
  if (!doc.markdownStorageKey) return '';
  return new TextDecoder().decode(await ctx.blobs.get(doc.markdownStorageKey));
}

/** A document's detection profile, read from its Markdown. */
export const profileOf = async (ctx: ContextPart<'blobs'>, doc: DocumentRecord): Promise<DuplicateProfile> => duplicateProfile(await markdownOf(ctx, doc));

/** Profiles by document id, read once and kept while in use (bounded). */
export class ProfileCache {
  private readonly entries = new Map<string, DuplicateProfile>();
  constructor(
    readonly ctx: ContextPart<'blobs'>,
    private readonly capacity = 2_000,
  ) {}

  async get(doc: DocumentRecord): Promise<DuplicateProfile> {
    const hit = this.entries.get(doc.id);
    if (hit) return hit;
    const profile = await profileOf(this.ctx, doc);
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(doc.id, profile);
    return profile;
  }
}
