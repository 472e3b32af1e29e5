import type { ResearchSource } from '../domain/types.ts';

/** A retrieved source with the marker the model cites it by. */
export interface MarkedSource {
  marker: string;
  source: ResearchSource;
}

/**
 * The chunks tools have shown the model in one run, each numbered once (`S1`, `S2`, … in order of first
 * retrieval; a chunk returned again keeps its marker), so citations resolve to chunks that really came back.
 */
export class SourceRegistry {
  private readonly byChunk = new Map<string, MarkedSource>();
  private readonly byMarker = new Map<string, MarkedSource>();
  private readonly shown = new Set<string>();

  /** The marker of a source, registering it on first sight. */
  add(source: ResearchSource): MarkedSource {
    const known = this.byChunk.get(source.chunkId);
    if (known) return known;
    const entry = { marker: `S${this.byChunk.size + 1}`, source: { ...source } };
    this.byChunk.set(source.chunkId, entry);
    this.byMarker.set(entry.marker, entry);
    return entry;
  }

  /** The source of a marker such as `S3`, or undefined. */
  get(marker: string): ResearchSource | undefined {
    return this.byMarker.get(marker)?.source;
  }

  /**
   * Whether the model has already been given this source's full text in this run; the first call marks it
   * shown (issue 12: a chunk's text reaches the model at most once per run, later hits refer to its marker).
   */
  shownBefore(marker: string): boolean {
    if (this.shown.has(marker)) return true;
    this.shown.add(marker);
    return false;
  }

  /** Every registered source in marker order. */
  all(): MarkedSource[] {
    return [...this.byChunk.values()];
  }
}
