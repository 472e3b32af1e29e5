import type { SectionRecord } from '../domain/types.ts';

/**
 * What the post-ready model jobs write: AI section summaries and image/table captions. Part of the
 * MetadataStore, kept in its own file so that port stays small.
 */
export interface EnrichStore {
  /**
   * Set a section's summary to an AI summary (summaryType `generated`). The store keeps the section's extractive
   * summary aside so resetGeneratedSummaries can restore it; calling this again on a generated section keeps it.
   */
  setGeneratedSummary(sectionId: string, summary: string): Promise<void>;
  /**
   * Put every generated summary of the collection back to its extractive summary (or null when the section had
   * none) and return the sections changed, as they now are.
   */
  resetGeneratedSummaries(collectionId: string): Promise<SectionRecord[]>;
  /** Set one image's caption. */
  setImageCaption(imageId: string, caption: string): Promise<void>;
  /** Set one table chunk's caption. */
  setTableChunkCaption(chunkId: string, caption: string): Promise<void>;
  /** Clear every image and table-chunk caption of the collection; returns the ids of the documents that had one. */
  resetCaptions(collectionId: string): Promise<string[]>;
}
