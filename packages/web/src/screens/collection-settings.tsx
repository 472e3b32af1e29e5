import { QUERY_EXPANSIONS, VISIBILITIES } from '@dossier/core/vocabulary';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import type { FormEvent } from 'react';
import { api, type Collection, oneOf, unwrap, type Visibility } from '../api.ts';

const EXPANSION_LABELS: Record<(typeof QUERY_EXPANSIONS)[number], string> = { none: 'none', rm3: 'RM3 (pseudo-relevance feedback)' };
const VISIBILITY_LABELS: Record<Visibility, string> = { private: 'private', public: 'public (anyone can read and search)' };

/** A collection's settings: chunking, visibility, query expansion, reranking, deduplication, instructions. */
export function CollectionSettingsPage() {
  const { collectionId } = useParams({ from: '/collections/$collectionId/settings' });
  const collection = useQuery({
    queryKey: ['collection', collectionId],
    queryFn: async () => unwrap(await api.GET('/v1/collections/{id}', { params: { path: { id: collectionId } } })),
  });
  return (
    <>
      <p>
        <Link to="/collections/$collectionId" params={{ collectionId }}>
          ← Documents
        </Link>
      </p>
      <h1>Settings{collection.data ? ` of ${collection.data.name}` : ''}</h1>
      {collection.error && (
        <p role="alert" className="error">
          {collection.error.message}
        </p>
      )}
      {collection.data && 'chunkSize' in collection.data && <SettingsForm collection={collection.data} />}
    </>
  );
}

function SettingsForm({ collection }: { collection: Collection }) {
  const queries = useQueryClient();
  const save = useMutation({
    mutationFn: async (body: Record<string, unknown>) => unwrap(await api.PATCH('/v1/collections/{id}', { params: { path: { id: collection.id } }, body })),
    onSuccess: (saved) => queries.setQueryData(['collection', collection.id], saved),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const instructions = String(f.get('instructions') ?? '').trim();
    save.mutate({
      visibility: f.get('visibility'),
      chunkSize: Number(f.get('chunkSize')),
      chunkOverlap: Number(f.get('chunkOverlap')),
      queryExpansion: oneOf(QUERY_EXPANSIONS, f.get('queryExpansion'), 'none'),
      enableReranking: f.get('enableReranking') === 'on',
      enableDeduplication: f.get('enableDeduplication') === 'on',
      instructions: instructions || null,
    });
  };
  return (
    <form className="stack" onSubmit={submit}>
      <label>
        Visibility
        <select name="visibility" defaultValue={collection.visibility}>
          {VISIBILITIES.map((v) => (
            <option key={v} value={v}>
              {VISIBILITY_LABELS[v]}
            </option>
          ))}
        </select>
      </label>
      <label>
        Chunk size (tokens)
        <input name="chunkSize" type="number" min={64} max={4096} defaultValue={collection.chunkSize} />
      </label>
      <label>
        Chunk overlap (tokens)
        <input name="chunkOverlap" type="number" min={0} max={512} defaultValue={collection.chunkOverlap} />
      </label>
      <label>
        Query expansion
        <select name="queryExpansion" defaultValue={collection.queryExpansion ?? 'none'}>
          {QUERY_EXPANSIONS.map((x) => (
            <option key={x} value={x}>
              {EXPANSION_LABELS[x]}
            </option>
          ))}
        </select>
      </label>
      <label className="check">
        <input name="enableReranking" type="checkbox" defaultChecked={collection.enableReranking} /> Rerank results
      </label>
      <label className="check">
        <input name="enableDeduplication" type="checkbox" defaultChecked={collection.enableDeduplication} /> Detect duplicates
      </label>
      <label>
        Instructions (for research answers)
        <textarea name="instructions" rows={4} maxLength={4000} defaultValue={collection.instructions ?? ''} />
      </label>
      <button type="submit" disabled={save.isPending}>
        Save settings
      </button>
      {save.isSuccess && <p role="status">Saved.</p>}
      {save.error && (
        <p role="alert" className="error">
          {save.error.message}
        </p>
      )}
    </form>
  );
}
