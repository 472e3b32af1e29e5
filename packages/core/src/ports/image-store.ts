import type { DocumentImageRecord, TableChunkRecord } from '../domain/types.ts';

/** The images and table chunks that conversion finds: the part of the MetadataStore for issue 3's records. */
export interface ImageStore {
  /** Replace every image record of a document in one transaction. */
  replaceImages(documentId: string, images: DocumentImageRecord[]): Promise<void>;
  /** Images of a document ordered by position. */
  listImages(documentId: string): Promise<DocumentImageRecord[]>;
  /** Replace every table-chunk record of a document in one transaction. */
  replaceTableChunks(documentId: string, rows: TableChunkRecord[]): Promise<void>;
  /** Table chunks of a document ordered by section position, then chunk position. */
  listTableChunks(documentId: string): Promise<TableChunkRecord[]>;
}
