/** Implementations of core's ports. Each folder wraps one library, loaded only when used. */
export * from './sqlite/metadata-store.ts';
export * from './sqlite/job-queue.ts';
export * from './lancedb/chunk-index.ts';
export * from './fs/blob-store.ts';
export { createS3BlobStore, type S3BlobStoreOptions, s3BlobStoreFromUrl } from './s3/blob-store.ts';
export { createRedisEventBus } from './redis/event-bus.ts';
export { createPostgresJobQueue, type PostgresJobQueue } from './postgres/job-queue.ts';
export * from './embedders/provider.ts';
export * from './create-dossier.ts';
export * from './providers/factory.ts';
export * from './providers/model-resolver.ts';
export * from './pool/convert-pool.ts';
export * from './rerankers/spec.ts';
export { DEFAULT_CROSS_ENCODER, loadCrossEncoderReranker } from './rerankers/cross-encoder.ts';
export * from './limits/index.ts';
export * from './webhooks/http-sender.ts';
