import { useMutation } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import type { FormEvent } from 'react';
import { api, unwrap } from '../api.ts';
import { citationSearch, whereLabel } from '../citation.tsx';
import { QueryTerms } from '../markdown.tsx';
import { passageKey } from './document.tsx';
import { CollectionHeader } from './documents.tsx';

/** The search playground: a query with the collection's filters and settings, each hit with where it came from. */
export function SearchPage() {
  const { collectionId } = useParams({ from: '/collections/$collectionId/search' });
  const search = useMutation({
    mutationFn: async (body: { q: string; tags?: string[]; limit: number }) =>
      unwrap(await api.POST('/v1/collections/{id}/query', { params: { path: { id: collectionId } }, body })),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const tags = String(f.get('tags') ?? '').split(',').map((t) => t.trim()).filter(Boolean);
    search.mutate({ q: String(f.get('q') ?? ''), limit: Number(f.get('limit') || 10), ...(tags.length ? { tags } : {}) });
  };
  const q = search.variables?.q ?? '';
  return (
    <>
      <CollectionHeader collectionId={collectionId} />
      <form className="inline" onSubmit={submit} aria-label="Search the collection">
        <label>Query<input name="q" type="search" /></label>
        <label>Tags (all of)<input name="tags" placeholder="e.g. finance, 2024" /></label>
        <label>Results<input name="limit" type="number" min={1} max={50} defaultValue={10} /></label>
        <button type="submit" disabled={search.isPending}>Search</button>
      </form>
      {search.error && <p role="alert" className="error">{search.error.message}</p>}
      {search.data && (
        <section aria-labelledby="results-title">
          <h2 id="results-title">{search.data.length} results</h2>
          <ol className="hits">
            {search.data.map((hit) => (
              <li key={hit.chunk.id} className="hit">
                <p className="provenance">
                  <Link to="/documents/$documentId" params={{ documentId: hit.document.id }} search={{ section: hit.section.id, highlight: passageKey(hit.chunk.content), ...citationSearch(hit) }}>
                    {hit.document.filename} › {hit.section.title || '(untitled section)'}
                  </Link>{' '}
                  <span className="muted">score {hit.score.toFixed(3)} · chunk {hit.chunk.position + 1}{whereLabel(hit) && ` · ${whereLabel(hit)}`}</span>
                </p>
                <blockquote><QueryTerms text={hit.chunk.content} query={q} /></blockquote>
              </li>
            ))}
          </ol>
        </section>
      )}
    </>
  );
}
