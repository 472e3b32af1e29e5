import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { api, type Schemas, unwrap } from '../api.ts';
import { ErrorLine, when } from './common.tsx';
import { CollectionHeader } from './documents.tsx';

type RunSummary = Schemas['EvaluationRunSummary'];
type Run = Schemas['EvaluationRun'];
const HISTORY = 50;
const fixed = (n: number) => n.toFixed(3);

/**
 * Evaluation of a collection (issue 38; docs/evaluation.md): its golden sets, a run of one of them, the metric
 * history as a chart, and the worst queries of a run with what came back.
 */
export function EvaluationPage() {
  const { collectionId } = useParams({ from: '/collections/$collectionId/evaluation' });
  const [selected, setSelected] = useState<string | null>(null);
  const runs = useQuery({
    queryKey: ['evaluations', collectionId],
    queryFn: async () => unwrap(await api.GET('/v1/collections/{id}/evaluations', { params: { path: { id: collectionId }, query: { limit: HISTORY } } })),
  });
  const shown = selected ?? runs.data?.[0]?.id ?? null;
  return (
    <>
      <CollectionHeader collectionId={collectionId} />
      <h2>Evaluation</h2>
      <GoldenSets collectionId={collectionId} onRun={(run) => setSelected(run.id)} />
      <ErrorLine error={runs.error} />
      {runs.data && runs.data.length === 0 && <p>No runs yet. Run a golden set to measure how well the collection answers.</p>}
      {runs.data && runs.data.length > 0 && (
        <>
          {runs.data.some(hasMetrics) && <MetricChart runs={runs.data.filter(hasMetrics).reverse()} />}
          <RunList runs={runs.data} selected={shown} onSelect={setSelected} />
        </>
      )}
      {shown && <WorstQueries collectionId={collectionId} runId={shown} />}
    </>
  );
}

/** The golden sets, and a form that runs one with the collection's settings (or another result limit). */
function GoldenSets({ collectionId, onRun }: { collectionId: string; onRun: (run: Run) => void }) {
  const queries = useQueryClient();
  const sets = useQuery({
    queryKey: ['golden-sets', collectionId],
    queryFn: async () => unwrap(await api.GET('/v1/collections/{id}/golden-sets', { params: { path: { id: collectionId } } })),
  });
  const run = useMutation({
    mutationFn: async (body: { setId: string; settings?: { limit: number } }) =>
      unwrap(await api.POST('/v1/collections/{id}/evaluations', { params: { path: { id: collectionId } }, body })),
    onSuccess: async (done) => {
      await queries.invalidateQueries({ queryKey: ['evaluations', collectionId] });
      onRun(done);
    },
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const limit = Number(f.get('limit') || 0);
    run.mutate({ setId: String(f.get('setId')), ...(limit ? { settings: { limit } } : {}) });
  };
  if (sets.data?.length === 0) {
    return (
      <p>
        No golden sets yet. Import one with <code>dossier eval import</code> or draft questions with <code>dossier eval propose</code>.
      </p>
    );
  }
  return (
    <section aria-labelledby="sets-title">
      <h3 id="sets-title">Golden sets</h3>
      <ErrorLine error={sets.error} />
      <table className="grid">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Version</th>
            <th scope="col">Queries</th>
            <th scope="col">Matched by</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {sets.data?.map((s) => (
            <tr key={s.id}>
              <td>{s.name}</td>
              <td>{s.version}</td>
              <td>{s.queryCount}</td>
              <td>{s.matchBy}</td>
              <td>{when(s.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {sets.data && (
        <form className="inline" onSubmit={submit} aria-label="Run an evaluation">
          <label>
            Golden set
            <select name="setId">
              {sets.data.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name} (v{s.version})
                </option>
              ))}
            </select>
          </label>
          <label>
            Results per query (k)
            <input name="limit" type="number" min={1} max={100} placeholder="10" />
          </label>
          <button type="submit" disabled={run.isPending}>
            {run.isPending ? 'Running…' : 'Run evaluation'}
          </button>
        </form>
      )}
      <ErrorLine error={run.error} />
    </section>
  );
}

const SERIES = [
  { key: 'ndcg10', label: 'nDCG@10', color: '#1d4ed8', dash: '' },
  { key: 'recall', label: 'Recall@k', color: '#047857', dash: '6 3' },
  { key: 'mrr', label: 'MRR', color: '#b45309', dash: '2 3' },
] as const;

/** A completed run (a queued run on a shadow copy has no metrics while it runs, nor when it failed). */
type MeasuredRun = RunSummary & { metrics: NonNullable<RunSummary['metrics']> };
const hasMetrics = (r: RunSummary): r is MeasuredRun => r.metrics !== null;

/** nDCG@10, recall@k and MRR of each completed run, oldest to newest, as lines on a 0–1 scale (plain SVG). */
function MetricChart({ runs }: { runs: MeasuredRun[] }) {
  const [width, height, pad] = [640, 220, 32];
  const x = (i: number) => pad + (runs.length === 1 ? (width - 2 * pad) / 2 : (i * (width - 2 * pad)) / (runs.length - 1));
  const y = (v: number) => height - pad - v * (height - 2 * pad);
  const latest = runs.at(-1)!.metrics;
  const summary = `Metric history of ${runs.length} run${runs.length === 1 ? '' : 's'}; latest nDCG@10 ${fixed(latest.ndcg10)}, recall ${fixed(latest.recall)}, MRR ${fixed(latest.mrr)}`;
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={summary} data-testid="metric-chart">
        {[0, 0.25, 0.5, 0.75, 1].map((v) => (
          <g key={v}>
            <line x1={pad} x2={width - pad} y1={y(v)} y2={y(v)} stroke="#e5e7eb" />
            <text x={4} y={y(v) + 4} fontSize="11" fill="#374151">
              {v.toFixed(2)}
            </text>
          </g>
        ))}
        {SERIES.map((s) => (
          <g key={s.key} data-series={s.key}>
            <polyline
              fill="none"
              stroke={s.color}
              strokeWidth="2"
              strokeDasharray={s.dash}
              points={runs.map((r, i) => `${x(i)},${y(r.metrics[s.key])}`).join(' ')}
            />
            {runs.map((r, i) => (
              <circle key={r.id} cx={x(i)} cy={y(r.metrics[s.key])} r="3" fill={s.color}>
                <title>{`${s.label} ${fixed(r.metrics[s.key])} (${when(r.createdAt)})`}</title>
              </circle>
            ))}
          </g>
        ))}
      </svg>
      <figcaption>
        {SERIES.map((s) => (
          <span key={s.key} className="legend" style={{ color: s.color }}>
            — {s.label}{' '}
          </span>
        ))}
        <span>, oldest run left, newest right</span>
      </figcaption>
    </figure>
  );
}

function RunList({ runs, selected, onSelect }: { runs: RunSummary[]; selected: string | null; onSelect: (id: string) => void }) {
  return (
    <section aria-labelledby="runs-title">
      <h3 id="runs-title">Runs</h3>
      <table className="grid">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Trigger</th>
            <th scope="col">Settings</th>
            <th scope="col">nDCG@10</th>
            <th scope="col">Recall@k</th>
            <th scope="col">MRR</th>
            <th scope="col">p50 / p95 ms</th>
            <th scope="col">Queries</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.id} className={r.id === selected ? 'selected' : undefined}>
              <td>
                <button type="button" className="link" onClick={() => onSelect(r.id)} aria-label={`Show the run of ${when(r.createdAt)}`}>
                  {when(r.createdAt)}
                </button>
              </td>
              <td>{r.trigger}</td>
              <td>{`expansion ${r.settings.queryExpansion}, rerank ${r.settings.enableReranking ? 'on' : 'off'}, k ${r.settings.limit}${r.settings.shadow ? `, shadow: chunks ${r.settings.chunkSize}/${r.settings.chunkOverlap}, ${r.settings.embeddingModel}` : ''}`}</td>
              {r.metrics ? (
                <>
                  <td>{fixed(r.metrics.ndcg10)}</td>
                  <td>{fixed(r.metrics.recall)}</td>
                  <td>{fixed(r.metrics.mrr)}</td>
                  <td>{`${r.metrics.latencyP50Ms.toFixed(1)} / ${r.metrics.latencyP95Ms.toFixed(1)}`}</td>
                  <td>{r.metrics.queries}</td>
                </>
              ) : (
                <td colSpan={5}>{r.status === 'failed' ? `failed: ${r.error ?? ''}` : 'running on a shadow copy…'}</td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** The queries of a run below a perfect nDCG@10, worst first: what was expected (at which rank) and what came back. */
function WorstQueries({ collectionId, runId }: { collectionId: string; runId: string }) {
  const run = useQuery({
    queryKey: ['evaluation', collectionId, runId],
    queryFn: async () => unwrap(await api.GET('/v1/collections/{id}/evaluations/{runId}', { params: { path: { id: collectionId, runId } } })),
  });
  const worst = (run.data?.perQuery ?? [])
    .filter((q) => q.ndcg10 < 1 - 1e-9)
    .sort((a, b) => a.ndcg10 - b.ndcg10)
    .slice(0, 20);
  return (
    <section aria-labelledby="worst-title">
      <h3 id="worst-title">Worst queries{run.data ? ` of the run of ${when(run.data.createdAt)}` : ''}</h3>
      <ErrorLine error={run.error} />
      {run.data && worst.length === 0 && <p>Every query found what it expected at the top.</p>}
      {worst.length > 0 && (
        <table className="grid" data-testid="worst-queries">
          <thead>
            <tr>
              <th scope="col">Query</th>
              <th scope="col">nDCG@10</th>
              <th scope="col">Expected (rank)</th>
              <th scope="col">What came back</th>
            </tr>
          </thead>
          <tbody>
            {worst.map((q) => (
              <tr key={q.id}>
                <td>{q.query}</td>
                <td>{fixed(q.ndcg10)}</td>
                <td>{q.expected.map((e) => `${e.target} (${e.rank ?? 'missed'})`).join(', ')}</td>
                <td>
                  <ol>
                    {q.returned.slice(0, 5).map((key) => (
                      <li key={key}>{key}</li>
                    ))}
                  </ol>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
