// A TypeScript consumer of the installed packages, type-checked with moduleResolution nodenext by scripts/consumer-test.sh.
// (The file is type-checked in the workspace too, against the sources.)
import { createDossier } from '@dossier/adapters';
import { DossierError } from '@dossier/core';
import { blobStoreSuite } from '@dossier/core/testing';

const dossier = await createDossier({ dataDir: './data', embeddingModel: 'none' });
const local = await dossier.local();
const col = await local.collections.create({ name: 'n' });
const { results } = await local.search.query(col.id, { q: 'tides', limit: 3 });
const first: string | undefined = results[0]?.document.filename;
console.log(first, DossierError.name, typeof blobStoreSuite);
await dossier.close();
