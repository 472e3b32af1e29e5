/**
 * `@dossier/core/conversion`: what a conversion or chunking worker thread needs, and nothing else of core. A thread
 * that imports `@dossier/core` loads the whole domain (research, claims, schemas, their libraries): about 20 MiB more
 * heap and resident memory in every thread, for code a worker never runs (measured on the installed package, issue
 * 11). The adapters' converters import from here too, since they run in those threads. Same modules as the main entry
 * point, so `DossierError` is one class whichever way it was imported.
 */
export { DossierError, isDossierError } from './domain/errors.ts';
export type { DossierErrorCode } from './domain/errors.ts';
export { chunkDocument } from './ingest/chunk-document.ts';
export type { ChunkInput, DraftChunkRow, SectionSpan } from './ingest/chunk-document.ts';
export { ConverterRegistry, defaultConverters } from './ingest/converters/registry.ts';
export { htmlToMarkdown } from './ingest/converters/html.ts';
export type * from './ingest/converters/types.ts';
export { prepareDocument } from './ingest/prepare.ts';
export type { PreparedDocument, PreparedImage, PrepareInput, PrepareChunking } from './ingest/prepare.ts';
