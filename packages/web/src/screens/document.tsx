import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams, useSearch } from '@tanstack/react-router';
import { type FormEvent, useEffect, useState } from 'react';
import { api, type Doc, type Section, sessionHeaders, unwrap } from '../api.ts';
import { CitationView, parseCitation } from '../citation.tsx';
import { Markdown } from '../markdown.tsx';
import { DocumentClaims } from './document-claims.tsx';

/** A short, whitespace-normalised opening of a passage: what the document page looks for to highlight it. */
export function passageKey(content: string): string {
  const words = content
    .replace(/^#+\s.*$/m, '')
    .replace(/[*_`>#|]/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
  return words.slice(0, 8).join(' ');
}

/** A document: status and why it failed, tags and metadata, section outline, its Markdown and a section's chunks. */
export function DocumentPage() {
  const { documentId } = useParams({ from: '/documents/$documentId' });
  const { section: target, highlight, ...citation } = useSearch({ from: '/documents/$documentId' });
  const cited = parseCitation(citation);
  const doc = useQuery({
    queryKey: ['document', documentId],
    queryFn: async () => unwrap(await api.GET('/v1/documents/{id}', { params: { path: { id: documentId } } })),
  });
  const ready = doc.data?.status === 'ready';
  const sections = useQuery({
    queryKey: ['sections', documentId],
    enabled: ready,
    queryFn: async () => unwrap(await api.GET('/v1/documents/{id}/sections', { params: { path: { id: documentId } } })),
  });
  const markdown = useQuery({
    queryKey: ['markdown', documentId],
    enabled: ready,
    queryFn: async () => unwrap(await api.GET('/v1/documents/{id}/markdown', { params: { path: { id: documentId } }, parseAs: 'text' })) as unknown as string,
  });
  useEffect(() => {
    if (!target || !markdown.data) return;
    const el = window.document.getElementById(`section-${target}`);
    el?.scrollIntoView({ block: 'start' });
    el?.focus({ preventScroll: true });
  }, [target, markdown.data]);
  if (doc.error)
    return (
      <p role="alert" className="error">
        {doc.error.message}
      </p>
    );
  if (!doc.data) return <p>Loading…</p>;
  const d = doc.data;
  return (
    <>
      <p>
        <Link to="/collections/$collectionId" params={{ collectionId: d.collectionId }}>
          ← Documents
        </Link>
      </p>
      <h1>{d.filename}</h1>
      <p>
        Status: <span className={`status ${d.status}`}>{d.status}</span> · {d.sectionCount ?? 0} sections · {d.chunkCount ?? 0} chunks
      </p>
      {d.status === 'error' && (
        <div role="alert" className="error-box">
          <h2>Why it failed</h2>
          <p>{d.errorMessage ?? 'The server recorded no reason.'}</p>
          <RetryButton doc={d} />
        </div>
      )}
      <TagsEditor doc={d} />
      {ready && <DocumentClaims documentId={documentId} />}
      {ready && <PageImages documentId={documentId} />}
      {markdown.data !== undefined && (cited.span || cited.regions) && (
        <CitationView key={citation.span ?? citation.regions} documentId={documentId} filename={d.filename} at={cited} markdown={markdown.data} />
      )}
      {sections.data && markdown.data !== undefined && (
        <div className="document-layout">
          <Outline sections={sections.data} documentId={documentId} current={target} />
          <article aria-label="Document content">
            {sectionSlices(markdown.data, sections.data).map(({ section, text }) => (
              <section
                key={section.id}
                id={`section-${section.id}`}
                tabIndex={-1}
                className={section.id === target ? 'target' : undefined}
                aria-label={section.title}
              >
                <Markdown text={text} highlight={section.id === target ? highlight : undefined} />
                {section.id === target && <Chunks sectionId={section.id} />}
              </section>
            ))}
          </article>
        </div>
      )}
    </>
  );
}

/** The Markdown of each section, by its offsets (the text before the first section goes with it). */
function sectionSlices(markdown: string, sections: Section[]): { section: Section; text: string }[] {
  const sorted = [...sections].sort((a, b) => a.markdownOffsetStart - b.markdownOffsetStart);
  return sorted.map((section, i) => ({
    section,
    text: markdown.slice(i === 0 ? 0 : section.markdownOffsetStart, sorted[i + 1]?.markdownOffsetStart ?? markdown.length),
  }));
}

function Outline({ sections, documentId, current }: { sections: Section[]; documentId: string; current?: string }) {
  return (
    <nav aria-label="Outline" className="outline">
      <h2>Outline</h2>
      <ol>
        {sections.map((s) => (
          <li key={s.id} style={{ marginLeft: `${(s.level - 1) * 0.75}rem` }}>
            <Link to="/documents/$documentId" params={{ documentId }} search={{ section: s.id }} aria-current={s.id === current ? 'location' : undefined}>
              {s.title || '(untitled)'}
            </Link>
            {s.pageStart !== undefined && (
              <span className="muted">
                {' '}
                p. {s.pageStart}
                {s.pageEnd !== s.pageStart ? `–${s.pageEnd}` : ''}
              </span>
            )}
          </li>
        ))}
      </ol>
    </nav>
  );
}

function Chunks({ sectionId }: { sectionId: string }) {
  const chunks = useQuery({
    queryKey: ['chunks', sectionId],
    queryFn: async () => unwrap(await api.GET('/v1/sections/{id}/chunks', { params: { path: { id: sectionId } } })),
  });
  if (!chunks.data) return null;
  return (
    <details className="chunks">
      <summary>{chunks.data.length} chunks of this section</summary>
      <ol>
        {chunks.data.map((c) => (
          <li key={c.id}>
            <pre>{c.content}</pre>
          </li>
        ))}
      </ol>
    </details>
  );
}

function RetryButton({ doc }: { doc: Doc }) {
  const queries = useQueryClient();
  const retry = useMutation({
    mutationFn: async () => unwrap(await api.POST('/v1/documents/{id}/retry', { params: { path: { id: doc.id } } })),
    onSettled: () => queries.invalidateQueries({ queryKey: ['document', doc.id] }),
  });
  return (
    <button type="button" onClick={() => retry.mutate()} disabled={retry.isPending}>
      Retry this document
    </button>
  );
}

/** Edit tags (comma-separated) and metadata (a JSON object). */
function TagsEditor({ doc }: { doc: Doc }) {
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: async (body: { tags: string[]; metadata: Record<string, unknown> }) =>
      unwrap(
        await api.PATCH('/v1/collections/{id}/documents/{docId}', {
          params: { path: { id: doc.collectionId, docId: doc.id } },
          body: { ...body, replaceMetadata: true },
        }),
      ),
    onSuccess: (saved) => {
      queries.setQueryData(['document', doc.id], saved);
      void queries.invalidateQueries({ queryKey: ['tags', doc.collectionId] }); // the table's tag filter offers the new tags
      void queries.invalidateQueries({ queryKey: ['documents', doc.collectionId] });
    },
    onError: (err) => setError(err.message),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    setError(null);
    let metadata: Record<string, unknown>;
    try {
      metadata = JSON.parse(String(f.get('metadata') || '{}'));
    } catch {
      setError('Metadata must be a JSON object');
      return;
    }
    const tags = String(f.get('tags') ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    save.mutate({ tags, metadata });
  };
  return (
    <details className="edit">
      <summary>Tags and metadata</summary>
      <form className="stack" onSubmit={submit}>
        <label>
          Tags (comma-separated)
          <input name="tags" defaultValue={doc.tags.join(', ')} />
        </label>
        <label>
          Metadata (JSON)
          <textarea name="metadata" rows={3} defaultValue={JSON.stringify(doc.metadata)} />
        </label>
        <button type="submit">Save tags and metadata</button>
        {save.isSuccess && <p role="status">Saved.</p>}
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
      </form>
    </details>
  );
}

/**
 * The document's images (pages, figures): fetched with the session's headers (an <img> cannot send them) and shown
 * from blob: URLs, which the page's CSP allows.
 */
function PageImages({ documentId }: { documentId: string }) {
  const images = useQuery({
    queryKey: ['images', documentId],
    queryFn: async () => {
      const list = unwrap(await api.GET('/v1/documents/{id}/images', { params: { path: { id: documentId } } }));
      return Promise.all(
        list.map(async (image) => {
          const res = await fetch(`/v1/documents/${encodeURIComponent(documentId)}/images/${encodeURIComponent(image.id)}`, { headers: sessionHeaders('GET') });
          return { ...image, url: res.ok ? URL.createObjectURL(await res.blob()) : null };
        }),
      );
    },
  });
  useEffect(
    () => () => {
      for (const image of images.data ?? []) if (image.url) URL.revokeObjectURL(image.url);
    },
    [images.data],
  );
  if (!images.data?.length) return null;
  return (
    <details className="images">
      <summary>{images.data.length === 1 ? '1 image' : `${images.data.length} images`}</summary>
      <ul>
        {images.data.map((i) => (
          <li key={i.id}>
            {i.url ? <img src={i.url} alt={i.caption ?? `Image ${i.position + 1} of the document`} /> : <span>Image {i.position + 1} could not be loaded</span>}
          </li>
        ))}
      </ul>
    </details>
  );
}
