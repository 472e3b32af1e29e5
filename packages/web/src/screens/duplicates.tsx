import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { api, type Schemas, unwrap } from '../api.ts';
import { ConfirmDialog, ErrorLine, when } from './common.tsx';
import { DetectionRun } from './detection-run.tsx';

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
      <DuplicateRun collectionId={collectionId} />
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

/** Start a detection run and follow it until it ends (the shared detection-run bar). */
function DuplicateRun({ collectionId }: { collectionId: string }) {
  return (
    <DetectionRun
      label="Run duplicate detection"
      runKey={['duplicate-run', collectionId]}
      listKey={['duplicates', collectionId]}
      latest={async () => {
        const res = await api.GET('/v1/collections/{id}/duplicates/runs/latest', { params: { path: { id: collectionId } } });
        return res.response.status === 404 ? null : unwrap(res);
      }}
      start={async () => unwrap(await api.POST('/v1/collections/{id}/duplicates/detect', { params: { path: { id: collectionId } } }))}
      describe={(run, finished) =>
        `${run.jobsEnqueued !== null && !finished ? ` (${run.jobsProcessed ?? 0} of ${run.jobsEnqueued} documents)` : ''}${
          run.status === 'completed' ? `, ${run.duplicatesDetected ?? 0} duplicates in ${run.duplicateGroupsCreated ?? 0} groups, ${when(run.completedAt)}` : ''
        }`
      }
    />
  );
}

function GroupCard({ collectionId, group }: { collectionId: string; group: Group }) {
  const queries = useQueryClient();
  const [comparing, setComparing] = useState<[Member, Member] | null>(null);
  // The pair picker mounts on demand: two selects in each of 50 cards slowed the page's first draw (bench/RESULTS.md).
  const [picking, setPicking] = useState(false);
  const [disbanding, setDisbanding] = useState(false);
  const canonical = group.members.find((m) => m.documentId === group.canonicalDocumentId);
  const refresh = () => queries.invalidateQueries({ queryKey: ['duplicates', collectionId] });
  const promote = useMutation({
    mutationFn: async (documentId: string) =>
      unwrap(
        await api.PATCH('/v1/collections/{id}/duplicates/{groupId}', {
          params: { path: { id: collectionId, groupId: group.id } },
          body: { canonicalDocumentId: documentId },
        }),
      ),
    onSuccess: refresh,
  });
  const disband = useMutation({
    mutationFn: async () =>
      unwrap(await api.DELETE('/v1/collections/{id}/duplicates/{groupId}', { params: { path: { id: collectionId, groupId: group.id } } })),
    onSuccess: () => {
      setDisbanding(false);
      void refresh();
    },
  });
  const label = `Group of ${canonical?.filename ?? group.canonicalDocumentId}`;
  return (
    <li className="card" aria-label={label}>
      <h2>{label}</h2>
      <MembersTable group={group} onPromote={(m) => promote.mutate(m.documentId)} onCompare={(m) => canonical && setComparing([m, canonical])} />
      {group.members.length > 2 && !picking && (
        <button type="button" onClick={() => setPicking(true)}>
          Compare two members…
        </button>
      )}
      {picking && <PickTwo group={group} onCompare={(left, right) => setComparing([left, right])} />}
      <button type="button" className="danger" onClick={() => setDisbanding(true)}>
        Disband group
      </button>
      <ErrorLine error={promote.error ?? disband.error} />
      {comparing && <Compare collectionId={collectionId} group={group} left={comparing[0]} right={comparing[1]} onClose={() => setComparing(null)} />}
      {disbanding && (
        <ConfirmDialog title="Disband this group?" confirmLabel="Disband group" onCancel={() => setDisbanding(false)} onConfirm={() => disband.mutate()}>
          <p>
            The {group.members.length} documents stop being marked as duplicates of {canonical?.filename}. No document is deleted; a later detection run may
            group them again.
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

/** Choose any two members of a group to compare (not only a member against the canonical). */
function PickTwo({ group, onCompare }: { group: Group; onCompare(left: Member, right: Member): void }) {
  const ids = { left: useId(), right: useId() };
  const [first, second] = group.members;
  const [left, setLeft] = useState(first?.documentId ?? '');
  const [right, setRight] = useState(second?.documentId ?? '');
  const byId = (id: string) => group.members.find((m) => m.documentId === id);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const [a, b] = [byId(left), byId(right)];
    if (a && b) onCompare(a, b);
  };
  const options = group.members.map((m) => (
    <option key={m.documentId} value={m.documentId}>
      {m.filename}
      {m.documentId === group.canonicalDocumentId ? ' (canonical)' : ''}
    </option>
  ));
  return (
    <form className="inline" onSubmit={submit} aria-label="Compare two members">
      <label htmlFor={ids.left}>Compare</label>
      <select id={ids.left} value={left} onChange={(e) => setLeft(e.target.value)}>
        {options}
      </select>
      <label htmlFor={ids.right}>with</label>
      <select id={ids.right} value={right} onChange={(e) => setRight(e.target.value)}>
        {options}
      </select>
      <button type="submit" disabled={left === right}>
        Compare these two
      </button>
    </form>
  );
}

/**
 * Two members side by side, the passages they share marked in both (GET …/duplicates/:groupId/compare aligns any
 * two members now, so two near duplicates of one canonical can be compared too).
 */
function Compare({ collectionId, group, left, right, onClose }: { collectionId: string; group: Group; left: Member; right: Member; onClose(): void }) {
  const leftText = useMarkdown(left.documentId);
  const rightText = useMarkdown(right.documentId);
  const pair = useQuery({
    queryKey: ['duplicate-compare', group.id, left.documentId, right.documentId],
    queryFn: async () =>
      unwrap(
        await api.GET('/v1/collections/{id}/duplicates/{groupId}/compare', {
          params: { path: { id: collectionId, groupId: group.id }, query: { left: left.documentId, right: right.documentId } },
        }),
      ),
  });
  const passages = pair.data?.passages ?? [];
  const name = (m: Member) => (m.documentId === group.canonicalDocumentId ? `${m.filename} (canonical)` : m.filename);
  return (
    <section aria-label={`${left.filename} compared with ${right.filename}`} className="compare">
      <div className="actions">
        <h3>
          {pair.data
            ? `${passages.length} shared passage${passages.length === 1 ? '' : 's'}; ${percent(pair.data.leftCoverage)} of ${left.filename} and ${percent(pair.data.rightCoverage)} of ${right.filename} shared`
            : 'Comparing…'}
        </h3>
        <button type="button" onClick={onClose}>
          Close comparison
        </button>
      </div>
      <ErrorLine error={pair.error ?? leftText.error ?? rightText.error} />
      <div className="side-by-side">
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus so the keyboard can scroll it */}
        <section tabIndex={0} aria-label={name(left)}>
          <h4>{name(left)}</h4>
          {leftText.data !== undefined && pair.data && <Highlighted text={leftText.data} spans={passages.map((p) => p.left)} />}
        </section>
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus so the keyboard can scroll it */}
        <section tabIndex={0} aria-label={name(right)}>
          <h4>{name(right)}</h4>
          {rightText.data !== undefined && pair.data && <Highlighted text={rightText.data} spans={passages.map((p) => p.right)} />}
        </section>
      </div>
    </section>
  );
}
