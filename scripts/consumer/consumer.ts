// A TypeScript consumer of the installed packages, type-checked with moduleResolution nodenext by scripts/consumer-test.sh.
// (The file is type-checked in the workspace too, against the sources.)
import { createServer } from 'node:http';
import { createDossier, type EmbeddedDossier } from '@dossier/adapters';
import { BLOB_STORE_SPEC_VERSION, type Dossier, DossierError, type Principal } from '@dossier/core';
import { FeatureHashingEmbedder } from '@dossier/core/feature-hashing';
import { blobStoreSuite } from '@dossier/core/testing';
import { createApp } from '@dossier/server';

const dossier: EmbeddedDossier = await createDossier({ dataDir: './data', embeddingModel: 'none', embedders: [new FeatureHashingEmbedder({ dimension: 32 })] });
const api: Dossier = dossier;
const local = await api.local();
const col = await local.collections.create({ name: 'n' });
const { results } = await local.search.query(col.id, { q: 'tides', limit: 3 });
const first: string | undefined = results[0]?.document.filename;
const caller: Principal = { kind: 'project_key', projectId: local.access.projectId, env: 'live', keyId: 'host' };
const app = createApp(api, { prefix: '/search', principal: () => caller });
const server = createServer((req, res) => void app.handler(req, res));
console.log(first, DossierError.name, typeof blobStoreSuite, BLOB_STORE_SPEC_VERSION, server.listening);
await dossier.close();
