import type { Metadata, RetrievalFilter } from '../domain/types.ts';
import { metadataPairs } from '../util/canonical-json.ts';
import { normalizeTags } from '../documents/view.ts';

/** The filter in the form the chunk index evaluates: tags normalised, metadata as canonical pairs. */
export function indexFilter(f: RetrievalFilter): RetrievalFilter & { metadataPairs?: string[] } {
  return {
    tags: f.tags?.length ? normalizeTags(f.tags) : undefined,
    anyTags: f.anyTags?.length ? normalizeTags(f.anyTags) : undefined,
    metadataPairs: f.metadata && Object.keys(f.metadata).length ? metadataPairs(f.metadata as Metadata) : undefined,
    documentIds: f.documentIds?.length ? [...new Set(f.documentIds)] : undefined,
  };
}
