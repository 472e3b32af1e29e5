import { DOCUMENT_STATUSES } from '@dossier/core/vocabulary';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, useState } from 'react';
import { api, type Doc, readSse, unwrap } from '../api.ts';
import { applyStatusEvent, type DocumentEvent, documentsKey } from '../live-status.ts';
import { useSession } from '../session.tsx';
import { UploadZone } from './upload.tsx';

type Status = (typeof DOCUMENT_STATUSES)[number];

/** Rows per page: the server pages, the table only draws the rows in view. */
const PAGE_SIZE = 500;
const ROW_HEIGHT = 40;

/** The documents of a collection: upload, filter, live status, retry, delete. */
export function DocumentsPage() {
  const { collectionId } = useParams({ from: '/collections/$collectionId' });
  const [status, setStatus] = useState<Status | ''>('');
  const [name, setName] = useState('');
  const [tag, setTag] = useState('');
  const [page, setPage] = useState(0);
  const docs = useDocuments(collectionId, { status, name, tag }, page);
  useLiveStatus(collectionId);
  const queries = useQueryClient();
  const retryAll = useMutation({
    mutationFn: async () => unwrap(await api.POST('/v1/collections/{id}/documents/retry-failed', { params: { path: { id: collectionId } } })),
    onSettled: () => queries.invalidateQueries({ queryKey: documentsKey(collectionId) }),
  });
  const total = docs.data?.total ?? 0;
  return (
    <>
      <CollectionHeader collectionId={collectionId} />
      <UploadZone collectionId={collectionId} />
      <section aria-labelledby="docs-title">
        <h2 id="docs-title">Documents ({total})</h2>
        <div className="inline">
          <label>
            Status
            <select
              value={status}
              onChange={(e) => {
                setStatus(e.target.value as Status | '');
                setPage(0);
              }}
            >
              <option value="">any</option>
              {DOCUMENT_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
          <TagFilter
            collectionId={collectionId}
            value={tag}
            onChange={(t) => {
              setTag(t);
              setPage(0);
            }}
          />
          <label>
            File name
            <input
              type="search"
              value={name}
              onChange={(e) => {
                setName(e.target.value);
                setPage(0);
              }}
            />
          </label>
          <button type="button" onClick={() => retryAll.mutate()} disabled={retryAll.isPending}>
            Retry all failed
          </button>
        </div>
        {docs.error && (
          <p role="alert" className="error">
            {docs.error.message}
          </p>
        )}
        <DocumentTable collectionId={collectionId} documents={docs.data?.documents ?? []} />
        {total > PAGE_SIZE && !name && (
          <nav className="inline" aria-label="Pages">
            <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>
              Previous page
            </button>
            <span>
              Page {page + 1} of {Math.ceil(total / PAGE_SIZE)}
            </span>
            <button type="button" disabled={(page + 1) * PAGE_SIZE >= total} onClick={() => setPage(page + 1)}>
              Next page
            </button>
          </nav>
        )}
      </section>
    </>
  );
}

/** The filters of the table: status, one tag, and a file name. */
interface DocumentFilters {
  status: Status | '';
  name: string;
  tag: string;
}

/** The page of documents: by status and tag from the list, or by file name (and tag) from the server's name search. */
function useDocuments(collectionId: string, { status, name, tag }: DocumentFilters, page: number) {
  const { sandbox } = useSession();
  return useQuery({
    queryKey: [...documentsKey(collectionId), sandbox, status, name, tag, page],
    placeholderData: (previous) => previous,
    queryFn: async (): Promise<{ documents: Doc[]; total: number }> => {
      const tags = tag ? { tags: [tag] } : {};
      if (name.trim()) {
        const body = { q: name.trim(), limit: 100, ...tags };
        const hits = unwrap(await api.POST('/v1/collections/{id}/documents/search', { params: { path: { id: collectionId } }, body }));
        const documents = hits.map((h) => h.document).filter((d) => !status || d.status === status);
        return { documents, total: documents.length };
      }
      const query = { limit: PAGE_SIZE, offset: page * PAGE_SIZE, ...(status ? { status } : {}), ...tags };
      return unwrap(await api.GET('/v1/collections/{id}/documents', { params: { path: { id: collectionId }, query } }));
    },
  });
}

/** Choose one tag to filter by, from the collection's tags with their document counts. */
function TagFilter({ collectionId, value, onChange }: { collectionId: string; value: string; onChange: (tag: string) => void }) {
  const { sandbox } = useSession();
  const tags = useQuery({
    queryKey: ['tags', collectionId, sandbox],
    queryFn: async () => unwrap(await api.GET('/v1/collections/{id}/tags', { params: { path: { id: collectionId } } })),
  });
  return (
    <label>
      Tag
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">any</option>
        {(tags.data?.tags ?? []).map((t) => (
          <option key={t.name} value={t.name}>
            {t.name} ({t.count})
          </option>
        ))}
      </select>
    </label>
  );
}

/** Follow the collection's status stream: rows change in place when their document's status does (no polling). */
function useLiveStatus(collectionId: string) {
  const queries = useQueryClient();
  useEffect(() => {
    const stop = new AbortController();
    const onEvent = (data: unknown) => applyStatusEvent(queries, collectionId, data as DocumentEvent);
    // The stream replays nothing: a status change made before it was open (an upload sent at once, or during a
    // reconnect) would leave its row stale for good, so the list is read again each time the stream opens.
    const caughtUp = () => {
      void queries.invalidateQueries({ queryKey: documentsKey(collectionId) });
      void queries.invalidateQueries({ queryKey: ['stats', collectionId] });
    };
    const follow = async () => {
      while (!stop.signal.aborted) {
        await readSse(`/v1/collections/${encodeURIComponent(collectionId)}/documents/events`, { signal: stop.signal }, onEvent, caughtUp).catch(() => {});
        if (!stop.signal.aborted) await new Promise((r) => setTimeout(r, 2000)); // reconnect after a drop
      }
    };
    void follow();
    return () => stop.abort();
  }, [collectionId, queries]);
}

export function CollectionHeader({ collectionId }: { collectionId: string }) {
  const collection = useQuery({
    queryKey: ['collection', collectionId],
    queryFn: async () => unwrap(await api.GET('/v1/collections/{id}', { params: { path: { id: collectionId } } })),
  });
  return (
    <>
      <h1>{collection.data?.name ?? 'Collection'}</h1>
      <nav className="tabs" aria-label="Collection">
        <Link to="/collections/$collectionId" params={{ collectionId }} activeOptions={{ exact: true }}>
          Documents
        </Link>
        <Link to="/collections/$collectionId/search" params={{ collectionId }}>
          Search
        </Link>
        <Link to="/collections/$collectionId/research" params={{ collectionId }}>
          Research
        </Link>
        <Link to="/collections/$collectionId/duplicates" params={{ collectionId }}>
          Duplicates
        </Link>
        <Link to="/collections/$collectionId/contradictions" params={{ collectionId }}>
          Contradictions
        </Link>
        <Link to="/collections/$collectionId/claims" params={{ collectionId }}>
          Claim map
        </Link>
        <Link to="/collections/$collectionId/evaluation" params={{ collectionId }}>
          Evaluation
        </Link>
        <Link to="/collections/$collectionId/settings" params={{ collectionId }}>
          Settings
        </Link>
      </nav>
    </>
  );
}

/** The rows in view only (TanStack Virtual), inside a real table, so thousands of rows stay fast and readable. */
function DocumentTable({ collectionId, documents }: { collectionId: string; documents: Doc[] }) {
  const scroller = useRef<HTMLElement>(null);
  const rows = useVirtualizer({ count: documents.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 10 });
  const items = rows.getVirtualItems();
  const before = items[0]?.start ?? 0;
  const after = rows.getTotalSize() - (items[items.length - 1]?.end ?? 0);
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus so the keyboard can scroll it
    <section ref={scroller} className="table-scroll" aria-label="Documents table" tabIndex={0}>
      <table className="documents">
        <thead>
          <tr>
            <th scope="col">File</th>
            <th scope="col">Status</th>
            <th scope="col">Tags</th>
            <th scope="col">Sections</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {before > 0 && <tr className="spacer" style={{ height: before }} />}
          {items.map((v) => {
            const d = documents[v.index];
            return d ? <DocumentRow key={d.id} collectionId={collectionId} doc={d} /> : null;
          })}
          {after > 0 && <tr className="spacer" style={{ height: after }} />}
        </tbody>
      </table>
      {documents.length === 0 && <p>No documents here.</p>}
    </section>
  );
}

function DocumentRow({ collectionId, doc }: { collectionId: string; doc: Doc }) {
  const queries = useQueryClient();
  const refresh = () => queries.invalidateQueries({ queryKey: documentsKey(collectionId) });
  const retry = useMutation({
    mutationFn: async () => unwrap(await api.POST('/v1/documents/{id}/retry', { params: { path: { id: doc.id } } })),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: async () => unwrap(await api.DELETE('/v1/documents/{id}', { params: { path: { id: doc.id } } })),
    onSettled: refresh,
  });
  return (
    <tr data-status={doc.status} style={{ height: ROW_HEIGHT }}>
      <td>
        <Link to="/documents/$documentId" params={{ documentId: doc.id }}>
          {doc.filename}
        </Link>
      </td>
      <td>
        <span className={`status ${doc.status}`}>{doc.status}</span>
        {doc.status === 'error' && doc.errorMessage && <span className="muted"> — {doc.errorMessage}</span>}
      </td>
      <td>{doc.tags.join(', ')}</td>
      <td>{doc.sectionCount ?? ''}</td>
      <td className="actions">
        {doc.status === 'error' && (
          <button type="button" onClick={() => retry.mutate()}>
            Retry<span className="visually-hidden"> {doc.filename}</span>
          </button>
        )}
        <button type="button" onClick={() => remove.mutate()}>
          Delete<span className="visually-hidden"> {doc.filename}</span>
        </button>
      </td>
    </tr>
  );
}
