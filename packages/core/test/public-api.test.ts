// Type-level tests of the declared public API (issue 35): what `@dossier/core` exports and what `Dossier` promises.
// They run under `tsc` (pnpm typecheck) like any test file; the few runtime assertions run under vitest.
import * as core from '@dossier/core';
import type {
  Access,
  CollectionsApi,
  CollectionView,
  CreateCollectionInput,
  DocumentView,
  Dossier,
  DossierDeps,
  QueryHit,
  QueryInput,
  ScanResults,
  ScopedDossier,
  SearchService,
  SessionClaims,
} from '@dossier/core';
import { describe, expect, expectTypeOf, it } from 'vitest';

describe('the declared Dossier', () => {
  it('has exactly its documented groups and lifecycle methods', () => {
    expectTypeOf<keyof Dossier>().toEqualTypeOf<
      | 'defaultEmbeddingModel'
      | 'collections'
      | 'documents'
      | 'search'
      | 'evaluations'
      | 'research'
      | 'claims'
      | 'duplicates'
      | 'events'
      | 'providerKeys'
      | 'usage'
      | 'auth'
      | 'keys'
      | 'orgs'
      | 'agents'
      | 'webhooks'
      | 'sources'
      | 'idempotency'
      | 'limits'
      | 'oauth'
      | 'people'
      | 'local'
      | 'start'
      | 'idle'
      | 'close'
    >();
  });

  it('takes the caller’s Access first on the data plane and answers with the named views', () => {
    expectTypeOf<Dossier['collections']>().toEqualTypeOf<CollectionsApi>();
    expectTypeOf<Dossier['collections']['create']>().parameters.toEqualTypeOf<[Access, CreateCollectionInput]>();
    expectTypeOf<Dossier['collections']['create']>().returns.toEqualTypeOf<Promise<CollectionView>>();
    expectTypeOf<Dossier['search']>().toEqualTypeOf<SearchService>();
    expectTypeOf<Dossier['search']['query']>().parameters.toEqualTypeOf<[Access, string, QueryInput]>();
    expectTypeOf<Dossier['search']['query']>().returns.resolves.toEqualTypeOf<{ results: QueryHit[]; reranker: string }>();
    expectTypeOf<Dossier['search']['scan']>().returns.resolves.toEqualTypeOf<ScanResults>();
    expectTypeOf<Dossier['documents']['get']>().returns.resolves.toEqualTypeOf<DocumentView>();
  });

  it('takes the signed-in account’s claims first on the management plane', () => {
    expectTypeOf<Dossier['orgs']['listMembers']>().parameter(0).toEqualTypeOf<SessionClaims>();
    expectTypeOf<Dossier['keys']['listProjectKeys']>().parameter(0).toEqualTypeOf<SessionClaims>();
    expectTypeOf<Dossier['people']['accounts']['me']>().parameter(0).toEqualTypeOf<SessionClaims>();
  });

  it('binds the Access of local() so its methods start at the collection', () => {
    expectTypeOf<Dossier['local']>().returns.resolves.toEqualTypeOf<ScopedDossier>();
    expectTypeOf<ScopedDossier['search']['query']>().parameters.toEqualTypeOf<[string, QueryInput]>();
    expectTypeOf<ScopedDossier['collections']['create']>().parameter(0).toEqualTypeOf<Omit<CreateCollectionInput, 'projectId'> & { projectId?: string }>();
    expectTypeOf<ScopedDossier['documents']['add']>().returns.resolves.toEqualTypeOf<DocumentView>();
    expectTypeOf<ScopedDossier>().not.toHaveProperty('auth');
  });

  it('is what createDossierCore returns, from the dependencies it declares', () => {
    expectTypeOf(core.createDossierCore).parameter(0).toEqualTypeOf<DossierDeps>();
    expectTypeOf(core.createDossierCore).returns.toEqualTypeOf<Dossier>();
  });
});

describe('the @dossier/core root', () => {
  it('exports the errors, the parts core provides and the port contract versions', () => {
    expect(typeof core.DossierError).toBe('function');
    expect(typeof core.InProcessEventBus).toBe('function');
    expect(typeof core.createDossierCore).toBe('function');
    expect(core.BLOB_STORE_SPEC_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('keeps core’s wiring on @dossier/core/internal, off the root', async () => {
    const internal = await import('@dossier/core/internal');
    for (const name of ['requireCollection', 'requireAccess', 'createJobRunner', 'documentTopic', 'oauthService', 'scopedDossier']) {
      expect(Object.keys(core), name).not.toContain(name);
      expect(Object.keys(internal), name).toContain(name);
    }
    expectTypeOf<typeof core>().not.toHaveProperty('requireCollection');
    expectTypeOf<typeof core>().not.toHaveProperty('createJobRunner');
  });

  it('has no DossierContext type to import', () => {
    // @ts-expect-error DossierContext is core's internal context: it is on @dossier/core/internal only
    type Context = import('@dossier/core').DossierContext;
    expectTypeOf<Context>().toBeAny();
    expectTypeOf<import('@dossier/core/internal').DossierContext>().toHaveProperty('store');
  });
});
