import type { SectionRecord } from '../domain/types.ts';

/** The sections of a document (part of the MetadataStore). */
export interface SectionStore {
  /** Replace every section of a document in one transaction (idempotent re-run). */
  replaceSections(documentId: string, sections: SectionRecord[]): Promise<void>;
  /** Set chunk counts of sections (sectionId → count). */
  setSectionChunkCounts(counts: Record<string, number>): Promise<void>;
  /** Sections of a document ordered by position. */
  listSections(documentId: string): Promise<SectionRecord[]>;
  /** Sections by ids. */
  getSections(ids: string[]): Promise<SectionRecord[]>;
}
