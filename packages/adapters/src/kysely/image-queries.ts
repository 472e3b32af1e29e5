import type { DocumentImageRecord, TableChunkRecord } from '@dossier/core';
import type { StoreContext } from './dialect.ts';
import { replaceDocumentRows, statement } from './statements.ts';

/** Images and table chunks of documents. */

const INSERT_BATCH = 80;

const deleteImages = statement('deleteImages', (db, documentId: string) => db.deleteFrom('document_images').where('document_id', '=', documentId));
const deleteTableChunks = statement('deleteTableChunks', (db, documentId: string) => db.deleteFrom('table_chunks').where('document_id', '=', documentId));

export async function replaceImages(ctx: StoreContext, documentId: string, images: DocumentImageRecord[]): Promise<void> {
  const rows = images.map((i) => ({
    id: i.id,
    document_id: documentId,
    section_id: i.sectionId,
    placeholder: i.placeholder,
    mime_type: i.mimeType,
    caption: i.caption,
    position: i.position,
    byte_size: i.byteSize,
  }));
  await replaceDocumentRows(ctx, documentId, deleteImages, 'document_images', rows, INSERT_BATCH);
}

export async function listImages({ db }: StoreContext, documentId: string): Promise<DocumentImageRecord[]> {
  const rows = await db.selectFrom('document_images').selectAll().where('document_id', '=', documentId).orderBy('position').execute();
  return rows.map((r) => ({
    id: r.id,
    documentId: r.document_id,
    sectionId: r.section_id,
    placeholder: r.placeholder,
    mimeType: r.mime_type,
    caption: r.caption,
    position: r.position,
    byteSize: r.byte_size,
  }));
}

export async function replaceTableChunks(ctx: StoreContext, documentId: string, chunks: TableChunkRecord[]): Promise<void> {
  const rows = chunks.map((c) => ({
    chunk_id: c.chunkId,
    document_id: documentId,
    section_id: c.sectionId,
    section_position: c.sectionPosition,
    chunk_position: c.chunkPosition,
    content: c.content,
    caption: c.caption,
  }));
  await replaceDocumentRows(ctx, documentId, deleteTableChunks, 'table_chunks', rows, INSERT_BATCH);
}

export async function listTableChunks({ db }: StoreContext, documentId: string): Promise<TableChunkRecord[]> {
  const rows = await db
    .selectFrom('table_chunks')
    .selectAll()
    .where('document_id', '=', documentId)
    .orderBy('section_position')
    .orderBy('chunk_position')
    .execute();
  return rows.map((r) => ({
    chunkId: r.chunk_id,
    documentId: r.document_id,
    sectionId: r.section_id,
    sectionPosition: r.section_position,
    chunkPosition: r.chunk_position,
    content: r.content,
    caption: r.caption,
  }));
}
