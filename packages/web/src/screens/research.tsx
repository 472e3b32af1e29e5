import { RESEARCH_DEPTH_NAMES } from '@dossier/core/vocabulary';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { type FormEvent, type ReactNode, useState } from 'react';
import { api, readSse, type ResearchSource, unwrap } from '../api.ts';
import { citationSearch, whereLabel } from '../citation.tsx';
import { passageKey } from './document.tsx';
import { CollectionHeader } from './documents.tsx';

type Depth = (typeof RESEARCH_DEPTH_NAMES)[number];

/** `[S1]`, `[1]`, `[S1, S3]`: the answer's citation markers (the server's grammar). */
const CITATION = /\[\s*(S?\d+(?:\s*[,;]\s*S?\d+)*)\s*\]/gi;

/** An event of the research stream. */
type ResearchEvent =
  | { type: 'tool_call'; query: string; tool?: string }
  | { type: 'chunk'; content: string }
  | { type: 'done'; sessionId: string; sources: ResearchSource[]; unresolvedCitations?: string[] }
  | { type: 'error'; error?: string; message?: string; code?: string };

interface Run {
  question: string;
  steps: string[];
  answer: string;
  sources: ResearchSource[];
  done: boolean;
  error?: string;
}

/** Research: ask at a depth, watch the answer and its tool steps stream in, open each citation's passage. */
export function ResearchPage() {
  const { collectionId } = useParams({ from: '/collections/$collectionId/research' });
  const { session } = useSearch({ from: '/collections/$collectionId/research' });
  const [run, setRun] = useState<Run | null>(null);
  const queries = useQueryClient();
  const navigate = useNavigate();
  const ask = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const question = String(f.get('q') ?? '');
    const depth = String(f.get('depth')) as Depth;
    let current: Run = { question, steps: [], answer: '', sources: [], done: false };
    setRun(current);
    void navigate({ to: '/collections/$collectionId/research', params: { collectionId }, search: {} });
    const apply = (change: Partial<Run>) => {
      current = { ...current, ...change };
      setRun(current);
    };
    try {
      await readSse(
        `/v1/collections/${encodeURIComponent(collectionId)}/research`,
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ q: question, depth }) },
        (data) => {
          const ev = data as ResearchEvent;
          if (ev.type === 'tool_call') apply({ steps: [...current.steps, `${ev.tool ?? 'search'}: ${ev.query}`] });
          else if (ev.type === 'chunk') apply({ answer: current.answer + ev.content });
          else if (ev.type === 'done') apply({ sources: ev.sources, done: true });
          else if (ev.type === 'error') apply({ error: ev.error ?? ev.message ?? ev.code ?? 'The research failed', done: true });
        },
      );
      apply({ done: true });
    } catch (err) {
      apply({ error: (err as Error).message, done: true });
    }
    void queries.invalidateQueries({ queryKey: ['research', collectionId] });
  };
  return (
    <>
      <CollectionHeader collectionId={collectionId} />
      <form className="stack" onSubmit={ask}>
        <label>
          Question
          <textarea name="q" rows={2} required />
        </label>
        <label>
          Depth
          <select name="depth" defaultValue="balanced">
            {RESEARCH_DEPTH_NAMES.map((d) => (
              <option key={d} value={d}>
                {d}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={run !== null && !run.done}>
          Ask
        </button>
      </form>
      {session ? <SavedSession collectionId={collectionId} sessionId={session} /> : run && <RunView run={run} />}
      <PastSessions collectionId={collectionId} />
    </>
  );
}

function RunView({ run }: { run: Run }) {
  return (
    <section aria-labelledby="answer-title" aria-busy={!run.done}>
      <h2 id="answer-title">{run.question}</h2>
      {run.steps.length > 0 && (
        <details open={!run.done}>
          <summary>{run.steps.length} tool steps</summary>
          <ol className="steps">
            {run.steps.map((s, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: steps only ever append, and the same query may run twice
              <li key={`${i}-${s}`}>{s}</li>
            ))}
          </ol>
        </details>
      )}
      {run.error && (
        <p role="alert" className="error">
          {run.error}
        </p>
      )}
      <Answer text={run.answer} sources={run.sources} />
      {!run.done && <p role="status">Researching…</p>}
    </section>
  );
}

/** The answer with every citation marker a link to its passage (plain text while the sources are not known yet). */
function Answer({ text, sources }: { text: string; sources: ResearchSource[] }) {
  const byMarker = new Map(sources.map((s, i) => [s.marker ?? `S${i + 1}`, s]));
  const parts: ReactNode[] = [];
  let at = 0;
  for (const m of text.matchAll(CITATION)) {
    parts.push(text.slice(at, m.index));
    const markers = (m[1] ?? '').split(/[,;]/).map((p) => `S${Number(p.trim().replace(/^s/i, ''))}`);
    parts.push(
      <span key={m.index} className="cite">
        [
        {markers.map((marker, i) => {
          const source = byMarker.get(marker);
          return (
            <span key={marker}>
              {i > 0 && ', '}
              {source ? (
                <Link
                  to="/documents/$documentId"
                  params={{ documentId: source.documentId }}
                  search={{ section: source.sectionId, highlight: passageKey(source.content), ...citationSearch(source) }}
                  title={`${source.filename} › ${source.sectionTitle}`}
                >
                  {marker}
                </Link>
              ) : (
                marker
              )}
            </span>
          );
        })}
        ]
      </span>,
    );
    at = (m.index ?? 0) + m[0].length;
  }
  parts.push(text.slice(at));
  return (
    <>
      <div className="answer">{parts}</div>
      {sources.length > 0 && (
        <ol className="sources" aria-label="Sources">
          {sources.map((s) => (
            <li key={`${s.marker}-${s.chunkId}`}>
              [{s.marker}]{' '}
              <Link
                to="/documents/$documentId"
                params={{ documentId: s.documentId }}
                search={{ section: s.sectionId, highlight: passageKey(s.content), ...citationSearch(s) }}
              >
                {s.filename} › {s.sectionTitle}
              </Link>
              {whereLabel(s) && <span className="muted"> ({whereLabel(s)})</span>}
            </li>
          ))}
        </ol>
      )}
    </>
  );
}

function SavedSession({ collectionId, sessionId }: { collectionId: string; sessionId: string }) {
  const saved = useQuery({
    queryKey: ['research', collectionId, sessionId],
    queryFn: async () => unwrap(await api.GET('/v1/collections/{id}/research/{sessionId}', { params: { path: { id: collectionId, sessionId } } })),
  });
  if (saved.error)
    return (
      <p role="alert" className="error">
        {saved.error.message}
      </p>
    );
  if (!saved.data) return <p>Loading…</p>;
  return <RunView run={{ question: saved.data.query, steps: [], answer: saved.data.response, sources: saved.data.sources as ResearchSource[], done: true }} />;
}

function PastSessions({ collectionId }: { collectionId: string }) {
  const list = useQuery({
    queryKey: ['research', collectionId],
    queryFn: async () => unwrap(await api.GET('/v1/collections/{id}/research', { params: { path: { id: collectionId } } })),
  });
  if (!list.data?.length) return null;
  return (
    <section aria-labelledby="past-title">
      <h2 id="past-title">Past research</h2>
      <ul>
        {list.data.map((s) => (
          <li key={s.id}>
            <Link to="/collections/$collectionId/research" params={{ collectionId }} search={{ session: s.id }}>
              {s.query}
            </Link>{' '}
            <span className="muted">
              {s.depth} · {new Date(s.createdAt).toLocaleString()}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
