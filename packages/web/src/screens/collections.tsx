import { VISIBILITIES } from '@dossier/core/vocabulary';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { api, type Collection, oneOf, unwrap, type Visibility } from '../api.ts';
import { useSession } from '../session.tsx';

/** Collections of the sandbox, with their stats; create one; delete one after confirming. */
export function CollectionsPage() {
  const { sandbox } = useSession();
  const list = useQuery({ queryKey: ['collections', sandbox], queryFn: async () => unwrap(await api.GET('/v1/collections')) });
  return (
    <>
      <h1>Collections</h1>
      <CreateCollection />
      {list.error && (
        <p role="alert" className="error">
          {list.error.message}
        </p>
      )}
      {list.data?.length === 0 && <p>No collection yet in this sandbox.</p>}
      <ul className="cards">
        {list.data?.map((c) => (
          <CollectionCard key={c.id} collection={c} />
        ))}
      </ul>
    </>
  );
}

function CreateCollection() {
  const { sandbox } = useSession();
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: async (body: { name: string; visibility: Visibility }) =>
      unwrap(await api.POST('/v1/collections', { body: { projectId: sandbox?.projectId ?? '', ...body } })),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['collections'] }),
    onError: (err) => setError(err.message),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setError(null);
    create.mutate({ name: String(form.get('name')), visibility: oneOf(VISIBILITIES, form.get('visibility'), 'private') });
    e.currentTarget.reset();
  };
  return (
    <form className="inline" onSubmit={submit} aria-label="Create a collection">
      <label>
        Name
        <input name="name" required maxLength={200} />
      </label>
      <label>
        Visibility
        <select name="visibility" defaultValue="private">
          {VISIBILITIES.map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" disabled={create.isPending}>
        Create collection
      </button>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </form>
  );
}

function CollectionCard({ collection }: { collection: Collection }) {
  const queries = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const stats = useQuery({
    queryKey: ['stats', collection.id],
    queryFn: async () => unwrap(await api.GET('/v1/collections/{id}/stats', { params: { path: { id: collection.id } } })),
  });
  const remove = useMutation({
    mutationFn: async () => unwrap(await api.DELETE('/v1/collections/{id}', { params: { path: { id: collection.id } } })),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['collections'] }),
  });
  const s = stats.data;
  return (
    <li className="card">
      <h2>
        <Link to="/collections/$collectionId" params={{ collectionId: collection.id }}>
          {collection.name}
        </Link>
      </h2>
      <p className="muted">
        {collection.visibility} · {collection.embeddingModel}
      </p>
      {s && (
        <p>
          {s.docCount} documents · {s.statusCounts.ready ?? 0} ready · {s.statusCounts.error ?? 0} in error · {s.totalSections} sections · {s.totalChunks}{' '}
          chunks
        </p>
      )}
      <nav className="actions" aria-label={`${collection.name} actions`}>
        <Link to="/collections/$collectionId/search" params={{ collectionId: collection.id }}>
          Search
        </Link>
        <Link to="/collections/$collectionId/research" params={{ collectionId: collection.id }}>
          Research
        </Link>
        <Link to="/collections/$collectionId/settings" params={{ collectionId: collection.id }}>
          Settings
        </Link>
        {confirming ? (
          <>
            <button type="button" className="danger" onClick={() => remove.mutate()}>
              Delete {collection.name} and all its documents
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </>
        ) : (
          <button type="button" onClick={() => setConfirming(true)}>
            Delete…
          </button>
        )}
      </nav>
      {remove.error && (
        <p role="alert" className="error">
          {remove.error.message}
        </p>
      )}
    </li>
  );
}
