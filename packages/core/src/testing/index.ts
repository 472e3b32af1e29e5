/** Test doubles and the conformance suite of every port, for adapters and for library users' own tests. */
export * from './fake-embedder.ts';
export * from './metadata-store-suite.ts';
// The suite of each feature store (each also run by metadataStoreSuite), for a store that replaces one part.
export { agentStoreTests } from './agent-store-suite.ts';
export { claimStoreTests } from './claim-store-suite.ts';
export { duplicateStoreTests } from './duplicate-store-suite.ts';
export { evaluationStoreTests } from './evaluation-store-suite.ts';
export { idempotencyStoreTests } from './idempotency-store-suite.ts';
export { oauthStoreTests } from './oauth-store-suite.ts';
export { peopleStoreTests } from './people-store-suite.ts';
export { webhookStoreTests } from './webhook-store-suite.ts';
export * from './chunk-index-suite.ts';
export * from './blob-store-suite.ts';
export * from './job-queue-suite.ts';
export * from './event-bus-suite.ts';
export * from './limits-suite.ts';
export * from './embedder-suite.ts';
export * from './scripted-model.ts';
export * from './claim-calls.ts';
export { waitFor } from './wait-for.ts';
/** Records with every field filled in, for tests of a store or of what reads it. */
export { collectionRecord, documentRecord, sourceRecord, sourceRunRecord } from './seed.ts';
export { dossierContext } from '../dossier.ts';
