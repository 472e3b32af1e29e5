import type { Access } from './access.ts';
import type { Bound, Dossier, ScopedDossier } from './dossier-api.ts';

export type { Bound, ScopedDossier };

function bind<T extends object>(service: T, access: Access): Bound<T> {
  return Object.fromEntries(
    Object.entries(service).map(([k, fn]) => [k, typeof fn === 'function' ? (...args: unknown[]) => fn(access, ...args) : fn]),
  ) as Bound<T>;
}

/** The data-plane services of one project sandbox, for apps that embed the library (no API key needed). */
export function scopedDossier(core: Dossier, access: NonNullable<Access>): ScopedDossier {
  const collections = bind(core.collections, access);
  return {
    access,
    collections: {
      ...collections,
      /** Create a collection in this project (projectId is filled in). */
      create: (input: Omit<Parameters<typeof collections.create>[0], 'projectId'> & { projectId?: string }) =>
        collections.create({ ...input, projectId: access.projectId }),
    },
    documents: {
      ...bind(core.documents, access),
      /** Add a file from bytes: the library form of a direct upload. */
      add: (collectionId: string, file: Parameters<Dossier['documents']['upload']>[2]) => core.documents.upload(access, collectionId, file),
    },
    search: bind(core.search, access),
    evaluations: bind(core.evaluations, access),
    research: bind(core.research, access),
    claims: bind(core.claims, access),
    duplicates: bind(core.duplicates, access),
    events: bind(core.events, access),
  };
}
