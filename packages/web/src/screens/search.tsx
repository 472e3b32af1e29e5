import { useMutation, useQueries } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import type { FormEvent } from 'react';
import { api, type QueryHit, type Section, unwrap } from '../api.ts';
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
    const tags = String(f.get('tags') ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    search.mutate({ q: String(f.get('q') ?? ''), limit: Number(f.get('limit') || 10), ...(tags.length ? { tags } : {}) });
  };
  const q = search.variables?.q ?? '';
  const paths = useSectionPaths(search.data ?? []);
  return (
    <>
      <CollectionHeader collectionId={collectionId} />
      <form className="inline" onSubmit={submit} aria-label="Search the collection">
        <label>
          Query
          <input name="q" type="search" />
        </label>
        <label>
          Tags (all of)
          <input name="tags" placeholder="e.g. finance, 2024" />
        </label>
        <label>
          Results
          <input name="limit" type="number" min={1} max={50} defaultValue={10} />
        </label>
        <button type="submit" disabled={search.isPending}>
          Search
        </button>
      </form>
      {search.error && (
        <p role="alert" className="error">
          {search.error.message}
        </p>
      )}
      {search.data && (
        <section aria-labelledby="results-title">
          <h2 id="results-title">{search.data.length} results</h2>
          <ol className="hits">
            {search.data.map((hit) => (
              <li key={hit.chunk.id} className="hit">
                <p className="provenance">
                  <Link
                    to="/documents/$documentId"
                    params={{ documentId: hit.document.id }}
                    search={{ section: hit.section.id, highlight: passageKey(hit.chunk.content), ...citationSearch(hit) }}
                  >
                    {hit.document.filename} › {(paths.get(hit.section.id) ?? [untitled(hit.section.title)]).join(' › ')}
                  </Link>{' '}
                  <span className="muted">
                    score {hit.score.toFixed(3)} · chunk {hit.chunk.position + 1}
                    {whereLabel(hit) && ` · ${whereLabel(hit)}`}
                  </span>{' '}
                  <FoundByBadges foundBy={hit.foundBy} />
                </p>
                <blockquote>
                  <QueryTerms text={hit.chunk.content} query={q} />
                </blockquote>
              </li>
            ))}
          </ol>
        </section>
      )}
    </>
  );
}

/** Which retrieval lists found the hit and at what rank: "lexical #1 · vector #3". */
function FoundByBadges({ foundBy }: { foundBy: QueryHit['foundBy'] }) {
  const lists = (['lexical', 'vector'] as const).flatMap((list) => (foundBy?.[list] === undefined ? [] : [{ list, rank: foundBy[list] }]));
  if (lists.length === 0) return null;
  return (
    <span className="found-by" data-testid="found-by">
      <span className="visually-hidden">Found by: </span>
      {lists.map(({ list, rank }) => (
        <span key={list} className={`badge ${list}`} title={`Rank ${rank} in the ${list} list before fusion`}>
          {list} #{rank}
        </span>
      ))}
    </span>
  );
}

const untitled = (title: string) => title || '(untitled section)';

/** Each hit's section path, from its document's outline (read once per document and cached, as the document page does). */
function useSectionPaths(hits: { document: { id: string } }[]): Map<string, string[]> {
  const documentIds = [...new Set(hits.map((h) => h.document.id))];
  const outlines = useQueries({
    queries: documentIds.map((id) => ({
      queryKey: ['sections', id],
      queryFn: async () => unwrap(await api.GET('/v1/documents/{id}/sections', { params: { path: { id } } })),
    })),
  });
  const paths = new Map<string, string[]>();
  for (const outline of outlines) for (const [id, path] of sectionPaths(outline.data ?? [])) paths.set(id, path);
  return paths;
}

/** The titles from the top of the outline down to each section: its ancestors by heading level, then itself. */
function sectionPaths(sections: Section[]): Map<string, string[]> {
  const paths = new Map<string, string[]>();
  const open: Section[] = [];
  for (const section of [...sections].sort((a, b) => a.position - b.position)) {
    while (open.length > 0 && (open[open.length - 1]?.level ?? 0) >= section.level) open.pop();
    open.push(section);
    paths.set(
      section.id,
      open.map((s) => untitled(s.title)),
    );
  }
  return paths;
}
