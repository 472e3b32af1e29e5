import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { type ReactNode, useEffect, useState } from 'react';
import { api, type Schemas, unwrap } from '../api.ts';
import { ConfirmDialog, ErrorLine, when } from './common.tsx';

type Group = Schemas['DuplicateGroup'];
type Member = Group['members'][number];
type Span = { start: number; end: number };
const PAGE = 50;

const percent = (value: number | null) => (value === null ? '—' : `${Math.round(value * 100)}%`);

/**
 * Near-duplicates of a collection (issue 37): run detection and watch it, the groups with each member's coverage
 * both ways and the canonical marked, compare a member with its canonical side by side (the shared passages
 * highlighted), promote another canonical, disband a group after a confirmation.
 */
export function DuplicatesPage() {
  const { collectionId } = useParams({ from: '/collections/$collectionId/duplicates' });
  const [offset, setOffset] = useState(0);
  const groups = useQuery({
    queryKey: ['duplicates', collectionId, offset],
    queryFn: async () => unwrap(await api.GET('/v1/collections/{id}/duplicates', { params: { path: { id: collectionId }, query: { limit: PAGE, offset } } })),
  });
  const total = groups.data?.total ?? 0;
  return (
    <>
      <p>
        <Link to="/collections/$collectionId" params={{ collectionId }}>
          ← Documents
        </Link>
      </p>
      <h1>Duplicates</h1>
      <DetectionRun collectionId={collectionId} />
      <ErrorLine error={groups.error} />
      <p role="status">
        {total} group{total === 1 ? '' : 's'}
        {total > PAGE ? `, ${offset + 1}–${Math.min(offset + PAGE, total)} shown` : ''}
      </p>
      <ul className="groups">
        {groups.data?.items.map((group) => (
          <GroupCard key={group.id} collectionId={collectionId} group={group} />
        ))}
      </ul>
      {total > PAGE && (
        <div className="actions">
          <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
            Previous groups
          </button>
          <button type="button" disabled={offset + PAGE >= total} onClick={() => setOffset(offset + PAGE)}>
            Next groups
          </button>
        </div>
      )}
    </>
  );
}

/** Start a detection run and follow it until it ends (the latest run, polled while it is pending or running). */
function DetectionRun({ collectionId }: { collectionId: string }) {
  const queries = useQueryClient();
  const latest = useQuery({
    queryKey: ['duplicate-run', collectionId],
    queryFn: async () => {
      const res = await api.GET('/v1/collections/{id}/duplicates/runs/latest', { params: { path: { id: collectionId } } });
      return res.response.status === 404 ? null : unwrap(res);
    },
    refetchInterval: (q) => (q.state.data && (q.state.data.status === 'pending' || q.state.data.status === 'running') ? 500 : false),
  });
  const run = latest.data;
  const finished = run?.status === 'completed' || run?.status === 'failed';
  const finishedRun = finished ? run.id : null;
  useEffect(() => {
    if (finishedRun) void queries.invalidateQueries({ queryKey: ['duplicates', collectionId] });
  }, [finishedRun, queries, collectionId]);
  const detect = useMutation({
    mutationFn: async () => unwrap(await api.POST('/v1/collections/{id}/duplicates/detect', { params: { path: { id: collectionId } } })),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['duplicate-run', collectionId] }),
  });
  return (
    <div className="actions">
      <button type="button" onClick={() => detect.mutate()} disabled={detect.isPending || (Boolean(run) && !finished)}>
        Run duplicate detection
      </button>
      {run && (
        <span className="run" aria-live="polite">
          Last run: {run.status}
          {run.jobsEnqueued !== null && !finished ? ` (${run.jobsProcessed ?? 0} of ${run.jobsEnqueued} documents)` : ''}
          {run.status === 'completed' ? `, ${run.duplicatesDetected ?? 0} duplicates in ${run.duplicateGroupsCreated ?? 0} groups, ${when(run.completedAt)}` : ''}
          {run.error ? `: ${run.error}` : ''}
        </span>
      )}
      <ErrorLine error={detect.error ?? latest.error} />
    </div>
  );
}

function GroupCard({ collectionId, group }: { collectionId: string; group: Group }) {
  const queries = useQueryClient();
  const [comparing, setComparing] = useState<Member | null>(null);
  const [disbanding, setDisbanding] = useState(false);
  const canonical = group.members.find((m) => m.documentId === group.canonicalDocumentId);
  const refresh = () => queries.invalidateQueries({ queryKey: ['duplicates', collectionId] });
  const promote = useMutation({
    mutationFn: async (documentId: string) =>
      unwrap(await api.PATCH('/v1/collections/{id}/duplicates/{groupId}', { params: { path: { id: collectionId, groupId: group.id } }, body: { canonicalDocumentId: documentId } })),
    onSuccess: refresh,
  });
  const disband = useMutation({
    mutationFn: async () => unwrap(await api.DELETE('/v1/collections/{id}/duplicates/{groupId}', { params: { path: { id: collectionId, groupId: group.id } } })),
    onSuccess: () => {
      setDisbanding(false);
      void refresh();
    },
  });
  const label = `Group of ${canonical?.filename ?? group.canonicalDocumentId}`;
  return (
    <li className="card" aria-label={label}>
      <h2>{label}</h2>
      <MembersTable group={group} onPromote={(m) => promote.mutate(m.documentId)} onCompare={setComparing} />
      <button type="button" className="danger" onClick={() => setDisbanding(true)}>
        Disband group
      </button>
      <ErrorLine error={promote.error ?? disband.error} />
      {comparing && canonical && <Compare canonical={canonical} member={comparing} onClose={() => setComparing(null)} />}
      {disbanding && (
        <ConfirmDialog title="Disband this group?" confirmLabel="Disband group" onCancel={() => setDisbanding(false)} onConfirm={() => disband.mutate()}>
          <p>
            The {group.members.length} documents stop being marked as duplicates of {canonical?.filename}. No document is deleted; a later detection
            run may group them again.
          </p>
        </ConfirmDialog>
      )}
    </li>
  );
}

function MembersTable({ group, onPromote, onCompare }: { group: Group; onPromote(m: Member): void; onCompare(m: Member): void }) {
  return (
    <table className="grid">
      <caption className="visually-hidden">Members of the group</caption>
      <thead>
        <tr>
          <th scope="col">Document</th>
          <th scope="col">Role</th>
          <th scope="col">Of it in the canonical</th>
          <th scope="col">Of the canonical in it</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {group.members.map((m) => {
          const isCanonical = m.documentId === group.canonicalDocumentId;
          return (
            <tr key={m.documentId}>
              <td>
                <Link to="/documents/$documentId" params={{ documentId: m.documentId }}>
                  {m.filename}
                </Link>
              </td>
              <td className={isCanonical ? 'canonical' : ''}>{isCanonical ? '★ canonical' : 'near duplicate'}</td>
              <td>{isCanonical ? '—' : percent(m.coverageToCanonical)}</td>
              <td>{isCanonical ? '—' : percent(m.coverageFromCanonical)}</td>
              <td>
                {!isCanonical && (
                  <span className="actions">
                    <button type="button" onClick={() => onCompare(m)} aria-label={`Compare ${m.filename} with the canonical`}>
                      Compare
                    </button>
                    <button type="button" onClick={() => onPromote(m)} aria-label={`Make canonical: ${m.filename}`}>
                      Make canonical
                    </button>
                  </span>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** A document's Markdown with the given spans marked (spans sorted, overlaps merged). */
export function Highlighted({ text, spans }: { text: string; spans: Span[] }) {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const parts: ReactNode[] = [];
  let at = 0;
  for (const span of sorted) {
    const start = Math.max(span.start, at);
    const end = Math.min(span.end, text.length);
    if (end <= start) continue;
    parts.push(text.slice(at, start), <mark key={start}>{text.slice(start, end)}</mark>);
    at = end;
  }
  parts.push(text.slice(at));
  return <pre className="doc-text">{parts}</pre>;
}

function useMarkdown(documentId: string) {
  return useQuery({
    queryKey: ['markdown', documentId],
    queryFn: async () => unwrap(await api.GET('/v1/documents/{id}/markdown', { params: { path: { id: documentId } }, parseAs: 'text' })) as unknown as string,
  });
}

/** The canonical and a member side by side, the passages they share marked in both. */
function Compare({ canonical, member, onClose }: { canonical: Member; member: Member; onClose(): void }) {
  const left = useMarkdown(canonical.documentId);
  const right = useMarkdown(member.documentId);
  const passages = member.sharedPassages ?? [];
  return (
    <section aria-label={`${member.filename} compared with ${canonical.filename}`} className="compare">
      <div className="actions">
        <h3>
          {passages.length} shared passage{passages.length === 1 ? '' : 's'}
        </h3>
        <button type="button" onClick={onClose}>
          Close comparison
        </button>
      </div>
      <ErrorLine error={left.error ?? right.error} />
      <div className="side-by-side">
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus so the keyboard can scroll it */}
        <section tabIndex={0} aria-label={`${canonical.filename} (canonical)`}>
          <h4>{canonical.filename} (canonical)</h4>
          {left.data !== undefined && <Highlighted text={left.data} spans={passages.map((p) => p.canonical)} />}
        </section>
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus so the keyboard can scroll it */}
        <section tabIndex={0} aria-label={member.filename}>
          <h4>{member.filename}</h4>
          {right.data !== undefined && <Highlighted text={right.data} spans={passages.map((p) => p.member)} />}
        </section>
      </div>
    </section>
  );
}
