import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { type FormEvent, useId, useState } from 'react';
import { api, type Schemas, unwrap } from '../api.ts';
import { ConfirmDialog, ErrorLine, when } from './common.tsx';
import { DetectionRun } from './detection-run.tsx';
import { Highlighted } from './duplicates.tsx';

type Contradiction = Schemas['Contradiction'];
type Claim = Contradiction['claims'][number];
type Severity = Contradiction['severity'];
type Status = Contradiction['status'];
/** Contradictions per page (the API's largest page is 100). */
const PAGE = 50;

/**
 * Contradictions between the claims of a collection (issue 37): run detection and follow it, a list filtered by
 * severity and status (the applied ones are what was applied before), each one side by side with its passages
 * marked, its explanation and suggested instruction; apply the instruction (showing the instructions it changes)
 * or dismiss it.
 */
export function ContradictionsPage() {
  const { collectionId } = useParams({ from: '/collections/$collectionId/contradictions' });
  const ids = { severity: useId(), status: useId() };
  const [severity, setSeverity] = useState<Severity | ''>('');
  const [status, setStatus] = useState<Status>('active');
  const [open, setOpen] = useState<string | null>(null);
  const [offset, setOffset] = useState(0);
  const list = useQuery({
    queryKey: ['contradictions', collectionId, severity, status, offset],
    queryFn: async () =>
      unwrap(
        await api.GET('/v1/collections/{id}/contradictions', {
          params: { path: { id: collectionId }, query: { status, limit: PAGE, offset, ...(severity ? { severity } : {}) } },
        }),
      ),
  });
  const opened = list.data?.items.find((c) => c.id === open) ?? null;
  const total = list.data?.total ?? 0;
  // A page past the end (after a dismissal emptied the last one) steps back to the last page there is.
  if (list.data && offset > 0 && offset >= total) setOffset(Math.max(0, Math.floor((total - 1) / PAGE) * PAGE));
  return (
    <>
      <p>
        <Link to="/collections/$collectionId" params={{ collectionId }}>
          ← Documents
        </Link>
      </p>
      <h1>Contradictions</h1>
      <ContradictionRun collectionId={collectionId} />
      <div className="inline">
        <label htmlFor={ids.severity}>Severity</label>
        <select
          id={ids.severity}
          value={severity}
          onChange={(e) => {
            setSeverity(e.target.value as Severity | '');
            setOffset(0);
          }}
        >
          <option value="">any</option>
          <option value="high">high</option>
          <option value="medium">medium</option>
          <option value="low">low</option>
        </select>
        <label htmlFor={ids.status}>Status</label>
        <select
          id={ids.status}
          value={status}
          onChange={(e) => {
            setStatus(e.target.value as Status);
            setOffset(0);
          }}
        >
          <option value="active">open</option>
          <option value="applied">applied before</option>
          <option value="dismissed">dismissed</option>
        </select>
      </div>
      <ErrorLine error={list.error} />
      <p role="status">
        {list.data ? `${total} contradiction${total === 1 ? '' : 's'}` : 'Loading…'}
        {total > PAGE ? `, ${offset + 1}–${Math.min(offset + PAGE, total)} shown` : ''}
      </p>
      <ul className="contradictions">
        {list.data?.items.map((c) => (
          <li key={c.id}>
            <button type="button" className="link" aria-expanded={open === c.id} onClick={() => setOpen(open === c.id ? null : c.id)}>
              <span className={`severity ${c.severity}`}>{c.severity}</span> {c.clusterTopicSummary ?? 'Contradiction'}:{' '}
              {c.claims.map((claim) => claim.documentName).join(' vs ')}
            </button>
          </li>
        ))}
      </ul>
      {total > PAGE && (
        <div className="actions">
          <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
            Previous contradictions
          </button>
          <button type="button" disabled={offset + PAGE >= total} onClick={() => setOffset(offset + PAGE)}>
            Next contradictions
          </button>
        </div>
      )}
      {opened && <ContradictionDetail collectionId={collectionId} contradiction={opened} onDone={() => setOpen(null)} />}
    </>
  );
}

/** Start contradiction detection and follow it (the shared detection-run bar). */
function ContradictionRun({ collectionId }: { collectionId: string }) {
  return (
    <DetectionRun
      label="Run contradiction detection"
      runKey={['contradiction-run', collectionId]}
      listKey={['contradictions', collectionId]}
      latest={async () => {
        const res = await api.GET('/v1/collections/{id}/contradictions/runs/latest', { params: { path: { id: collectionId } } });
        return res.response.status === 404 ? null : unwrap(res);
      }}
      start={async () => unwrap(await api.POST('/v1/collections/{id}/contradictions/detect', { params: { path: { id: collectionId } } }))}
      describe={(run) =>
        `${run.claimsProcessed !== null ? `, ${run.claimsProcessed} claims` : ''}${run.status === 'completed' ? `, ${run.contradictionsFound ?? 0} found, ${when(run.completedAt)}` : ''}`
      }
    />
  );
}

/** One claim in its section, the quoted passage marked. */
function ClaimPane({ claim }: { claim: Claim }) {
  const section = useQuery({
    queryKey: ['section', claim.sectionId],
    queryFn: async () => unwrap(await api.GET('/v1/sections/{id}', { params: { path: { id: claim.sectionId } } })),
  });
  const content = section.data?.content ?? '';
  const quote = claim.sourceText ?? '';
  const at = quote ? content.indexOf(quote) : -1;
  return (
    <section aria-label={`Claim in ${claim.documentName}`}>
      <h3>
        <Link
          to="/documents/$documentId"
          search={{ section: claim.sectionId, ...(quote ? { highlight: quote } : {}) }}
          params={{ documentId: claim.documentId }}
        >
          {claim.documentName}
        </Link>{' '}
        · {claim.sectionTitle}
      </h3>
      <p className="claim">{claim.text}</p>
      <ErrorLine error={section.error} />
      {section.data && <Highlighted text={content} spans={at >= 0 ? [{ start: at, end: at + quote.length }] : []} />}
    </section>
  );
}

function ContradictionDetail({ collectionId, contradiction, onDone }: { collectionId: string; contradiction: Contradiction; onDone(): void }) {
  const queries = useQueryClient();
  const [instruction, setInstruction] = useState(contradiction.suggestedInstruction ?? '');
  const [confirming, setConfirming] = useState(false);
  const collection = useQuery({
    queryKey: ['collection', collectionId],
    queryFn: async () => unwrap(await api.GET('/v1/collections/{id}', { params: { path: { id: collectionId } } })),
  });
  const current = collection.data && 'instructions' in collection.data ? (collection.data.instructions ?? '') : '';
  const path = { id: collectionId, contradictionId: contradiction.id };
  const finish = () => {
    void queries.invalidateQueries({ queryKey: ['contradictions', collectionId] });
    void queries.invalidateQueries({ queryKey: ['collection', collectionId] });
    onDone();
  };
  const apply = useMutation({
    mutationFn: async () => {
      const res = await api.POST('/v1/collections/{id}/contradictions/{contradictionId}/apply-instruction', {
        params: { path },
        body: { instruction: instruction.trim() },
      });
      if (!res.response.ok) unwrap(res);
    },
    onSuccess: finish,
  });
  const dismiss = useMutation({
    mutationFn: async () =>
      unwrap(await api.PATCH('/v1/collections/{id}/contradictions/{contradictionId}', { params: { path }, body: { status: 'dismissed' } })),
    onSuccess: finish,
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setConfirming(true);
  };
  const [left, right] = contradiction.claims;
  return (
    <section aria-label="Contradiction" className="detail">
      <h2>
        <span className={`severity ${contradiction.severity}`}>{contradiction.severity}</span> {contradiction.clusterTopicSummary ?? 'Contradiction'} (
        {contradiction.status})
      </h2>
      <p>{contradiction.explanation}</p>
      <div className="side-by-side">
        {left && <ClaimPane claim={left} />}
        {right && <ClaimPane claim={right} />}
      </div>
      {contradiction.claims.length > 2 && <p className="muted">{contradiction.claims.length - 2} more claims are part of it.</p>}
      {contradiction.status === 'active' && (
        <form className="stack" onSubmit={submit}>
          <label>
            Instruction for research answers
            <textarea rows={3} value={instruction} onChange={(e) => setInstruction(e.target.value)} maxLength={4000} />
          </label>
          <div className="actions">
            <button type="submit" disabled={!instruction.trim() || apply.isPending}>
              Apply instruction
            </button>
            <button type="button" onClick={() => dismiss.mutate()} disabled={dismiss.isPending}>
              Dismiss
            </button>
          </div>
        </form>
      )}
      <ErrorLine error={apply.error ?? dismiss.error} />
      {confirming && (
        <ConfirmDialog
          title="Change the collection instructions?"
          confirmLabel="Apply instruction"
          onCancel={() => setConfirming(false)}
          onConfirm={() => {
            setConfirming(false);
            apply.mutate();
          }}
        >
          <p>Research answers in this collection will follow the instructions below. Nothing is removed: the new instruction is added at the end.</p>
          <h3>Now</h3>
          <pre>{current || '(no instructions)'}</pre>
          <h3>After</h3>
          <pre>{current ? `${current}\n\n${instruction.trim()}` : instruction.trim()}</pre>
        </ConfirmDialog>
      )}
    </section>
  );
}
