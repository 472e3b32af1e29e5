import type { Access } from '../access.ts';
import type { ToolOutput } from '../tool-loop/context-window.ts';
import { isDossierError } from '../domain/errors.ts';
import type { Collection, RetrievalFilter } from '../domain/types.ts';
import type { MetadataStore } from '../ports/metadata-store.ts';
import type { SearchService } from '../search/query.ts';
import type { SourceRegistry } from './sources.ts';

/** What research tools run against: the caller's collection, the request's filters and the run's sources. */
export interface ResearchToolContext {
  search: SearchService;
  store: MetadataStore;
  access: NonNullable<Access>;
  collection: Collection;
  /** The request's tags/anyTags/metadata, applied to every tool call. */
  filter: RetrievalFilter;
  sources: SourceRegistry;
}

/** Errors the model can fix by calling again differently come back to it as text; anything else ends the run. */
export async function recoverable<T extends string | ToolOutput>(fn: () => Promise<T>): Promise<T | string> {
  try {
    return await fn();
  } catch (err) {
    if (isDossierError(err, 'invalid_input') || isDossierError(err, 'not_found')) return `Error: ${err.message}`;
    throw err;
  }
}
