import { AGENT_RUN_STATUSES } from '@dossier/core/vocabulary';
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, readSse, unwrap } from '../api.ts';
import { ErrorLine, when } from './common.tsx';

/** A streamed run (preview or invoke) as the page shows it: the tool steps, the answer so far, the end. */
interface Transcript {
  steps: string[];
  answer: string;
  status: string | null;
  error: string | null;
}

type StreamEvent = { type: string; tool?: string; args?: unknown; summary?: string; content?: string; message?: string; status?: string; runId?: string };

function applyEvent(t: Transcript, ev: StreamEvent): Transcript {
  if (ev.type === 'tool_call') return { ...t, steps: [...t.steps, `→ ${ev.tool} ${JSON.stringify(ev.args)}`] };
  if (ev.type === 'tool_result') return { ...t, steps: [...t.steps, `← ${ev.tool}: ${ev.summary}`] };
  if (ev.type === 'chunk') return { ...t, answer: t.answer + (ev.content ?? '') };
  if (ev.type === 'warning') return { ...t, steps: [...t.steps, `warning: ${ev.message}`] };
  if (ev.type === 'error') return { ...t, error: ev.message ?? 'The run failed' };
  if (ev.type === 'done') return { ...t, status: ev.status ?? 'done' };
  return t;
}

/** Ask a question to a saved agent (invoke) or to a draft (preview, admins only); the transcript streams in. */
export function RunPanel({ url, label, body }: { url: string; label: string; body: (query: string) => Record<string, unknown> }) {
  const id = useId();
  const [query, setQuery] = useState('');
  const [transcript, setTranscript] = useState<Transcript | null>(null);
  const start = async () => {
    let current: Transcript = { steps: [], answer: '', status: null, error: null };
    setTranscript(current);
    try {
      await readSse(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body(query)) }, (data) => {
        current = applyEvent(current, data as StreamEvent);
        setTranscript(current);
      });
    } catch (err) {
      setTranscript({ ...current, error: (err as Error).message });
    }
  };
  return (
    <section aria-label={label} className="run-panel">
      <h3>{label}</h3>
      <form
        className="inline"
        onSubmit={(e) => {
          e.preventDefault();
          void start();
        }}
      >
        <label htmlFor={id}>Question</label>
        <input id={id} value={query} onChange={(e) => setQuery(e.target.value)} required />
        <button type="submit">{label}</button>
      </form>
      {transcript && (
        <div aria-live="polite">
          <ol className="steps">
            {transcript.steps.map((step, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: steps only grow, in order
              <li key={i}>{step}</li>
            ))}
          </ol>
          <div className="answer">{transcript.answer}</div>
          {transcript.status && <p role="status">Run {transcript.status}</p>}
          {transcript.error && (
            <p role="alert" className="error">
              {transcript.error}
            </p>
          )}
        </div>
      )}
    </section>
  );
}

type RunStatus = (typeof AGENT_RUN_STATUSES)[number];

/** The agent's runs, filtered by status; one opened shows its steps. */
export function RunsPanel({ orgId, projectId, agentSlug }: { orgId: string; projectId: string; agentSlug: string }) {
  const filterId = useId();
  const [status, setStatus] = useState<RunStatus | ''>('');
  const [open, setOpen] = useState<string | null>(null);
  const path = { orgId, projectId, agentSlug };
  const runs = useQuery({
    queryKey: ['agent-runs', agentSlug, status],
    queryFn: async () =>
      unwrap(
        await api.GET('/v1/orgs/{orgId}/projects/{projectId}/agents/{agentSlug}/runs', {
          params: { path, query: { limit: 50, ...(status ? { status } : {}) } },
        }),
      ),
  });
  return (
    <section aria-label="Runs">
      <h3>Runs</h3>
      <div className="inline">
        <label htmlFor={filterId}>Run status</label>
        <select id={filterId} value={status} onChange={(e) => setStatus(e.target.value as RunStatus | '')}>
          <option value="">any</option>
          {AGENT_RUN_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <button type="button" onClick={() => void runs.refetch()}>
          Refresh runs
        </button>
      </div>
      <ErrorLine error={runs.error} />
      <ul>
        {runs.data?.runs.map((run) => (
          <li key={run.id}>
            <button type="button" className="link" aria-expanded={open === run.id} onClick={() => setOpen(open === run.id ? null : run.id)}>
              {run.status}: {run.query} ({when(run.createdAt)})
            </button>
            {open === run.id && <RunSteps path={{ ...path, runId: run.id }} />}
          </li>
        ))}
      </ul>
    </section>
  );
}

function RunSteps({ path }: { path: { orgId: string; projectId: string; agentSlug: string; runId: string } }) {
  const steps = useQuery({
    queryKey: ['agent-run-steps', path.runId],
    queryFn: async () => unwrap(await api.GET('/v1/orgs/{orgId}/projects/{projectId}/agents/{agentSlug}/runs/{runId}/steps', { params: { path } })),
  });
  return (
    <div>
      <ErrorLine error={steps.error} />
      <ol className="steps">
        {steps.data?.map((step) => (
          <li key={step.stepIndex}>
            {step.kind} {step.tool ?? ''} <code>{JSON.stringify(step.content).slice(0, 200)}</code>
          </li>
        ))}
      </ol>
    </div>
  );
}
