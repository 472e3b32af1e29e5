import type { CollectionStore } from '../ports/collection-store.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import { type Access, requireCollection } from '../access.ts';
import type { ContextPart } from '../context.ts';
import type { Metadata } from '../domain/types.ts';
import { documentView, normalizeTags } from '../documents/view.ts';
import { type FilenameSearchInput, filenameSearchSchema, parseInput } from '../schemas.ts';
import type { DocumentsApi } from '../api/documents.ts';

/** A name folded for matching: compatibility forms unified, accents dropped (`Résumé` → `resume`), lowercase. */
const foldName = (s: string): string => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * Trigrams of a string as pg_trgm makes them: lowercase words padded with two spaces in front, one behind; words
 * are runs of letters and digits in any script, accents folded so `resume` finds `Résumé.pdf`.
 */
export function trigrams(s: string): Set<string> {
  const out = new Set<string>();
  for (const word of foldName(s)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)) {
    const padded = `  ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) out.add(padded.slice(i, i + 3));
  }
  return out;
}

/**
 * Similarity of a query to a filename: the share of the query's trigrams found in the name, blended with
 * pg_trgm's Jaccard similarity so that shorter, closer names rank first. Range 0..1.
 */
export function filenameSimilarity(query: string, filename: string): number {
  const q = trigrams(query);
  const f = trigrams(filename);
  if (q.size === 0 || f.size === 0) return 0;
  let shared = 0;
  for (const t of q) if (f.has(t)) shared++;
  return 0.7 * (shared / q.size) + 0.3 * (shared / (q.size + f.size - shared));
}

/** Least similarity for a filename to count as a match. */
const MIN_SIMILARITY = 0.3;

/** Fuzzy filename search with the tag and metadata filters. */
export function filenameSearchService(ctx: ContextPart<never, CollectionStore & DocumentStore>): Pick<DocumentsApi, 'search'> {
  return {
    async search(access: Access, collectionId: string, raw: FilenameSearchInput) {
      const c = await requireCollection(ctx.store, access, collectionId, 'read');
      const input = parseInput(filenameSearchSchema, raw);
      const docs = await ctx.store.findDocuments(c.id, {
        tags: input.tags && normalizeTags(input.tags),
        anyTags: input.anyTags && normalizeTags(input.anyTags),
        metadata: input.metadata as Metadata | undefined,
      });
      return docs
        .map((d) => ({ score: filenameSimilarity(input.q, d.filename), document: documentView(d) }))
        .filter((h) => h.score >= MIN_SIMILARITY)
        .sort((a, b) => b.score - a.score || a.document.filename.localeCompare(b.document.filename))
        .slice(0, input.limit);
    },
  };
}
