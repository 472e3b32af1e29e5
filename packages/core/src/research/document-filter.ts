import type { DocumentRecord, Metadata, RetrievalFilter } from '../domain/types.ts';
import { indexFilter } from '../search/filters.ts';
import { metadataPairs } from '../util/canonical-json.ts';

/**
 * Whether a document passes a request's filters, with the same meaning the chunk index gives them (tags all,
 * anyTags one, metadata pairs deep-equal; non-canonical duplicates excluded). Used by tools that fetch by id,
 * so a filter cannot be bypassed by naming a section directly.
 */
export function documentMatches(doc: DocumentRecord, filter: RetrievalFilter): boolean {
  const f = indexFilter(filter);
  if (f.documentIds && !f.documentIds.includes(doc.id)) return false;
  const tags = new Set(doc.tags);
  if (f.tags && !f.tags.every((t) => tags.has(t))) return false;
  if (f.anyTags && !f.anyTags.some((t) => tags.has(t))) return false;
  if (f.metadataPairs) {
    const pairs = new Set(metadataPairs(doc.metadata as Metadata));
    if (!f.metadataPairs.every((p) => pairs.has(p))) return false;
  }
  return doc.canonical;
}
