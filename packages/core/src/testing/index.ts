/** Test doubles and the conformance suite of every port, for adapters and for library users' own tests. */
export * from './fake-embedder.ts';
export * from './metadata-store-suite.ts';
export { oauthStoreTests } from './oauth-store-suite.ts';
export * from './chunk-index-suite.ts';
export * from './blob-store-suite.ts';
export * from './job-queue-suite.ts';
export * from './event-bus-suite.ts';
export * from './limits-suite.ts';
export * from './embedder-suite.ts';
export * from './scripted-model.ts';
export * from './claim-calls.ts';
export { waitFor } from './wait-for.ts';
export { dossierContext } from '../dossier.ts';
