import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { ErrorLine } from './common.tsx';

/** What a detection run shows of itself: its id, status and error (contradiction and duplicate runs alike). */
type Run = { id: string; status: string; error: string | null };

export interface DetectionRunOptions<R extends Run> {
  /** Query key of the latest run (polled while it is in flight). */
  runKey: unknown[];
  /** Query key prefix of the list the run fills: refreshed when a run ends. */
  listKey: unknown[];
  /** The newest run, or null before the first. */
  latest(): Promise<R | null>;
  /** Start a run. */
  start(): Promise<unknown>;
}

const FINISHED = new Set(['completed', 'failed']);

/**
 * A detection run of a collection (issue 37: shared by the contradiction and duplicate screens): the latest run,
 * polled every half second while it is in flight; the list refreshed once it ends; and starting a new one.
 */
export function useDetectionRun<R extends Run>(options: DetectionRunOptions<R>) {
  const queries = useQueryClient();
  const latest = useQuery({
    queryKey: options.runKey,
    queryFn: options.latest,
    refetchInterval: (q) => (q.state.data && !FINISHED.has(q.state.data.status) ? 500 : false),
  });
  const run = latest.data ?? null;
  const finished = run !== null && FINISHED.has(run.status);
  const finishedRun = finished ? run.id : null;
  const listKey = JSON.stringify(options.listKey);
  useEffect(() => {
    if (finishedRun) void queries.invalidateQueries({ queryKey: JSON.parse(listKey) as unknown[] });
  }, [finishedRun, queries, listKey]);
  const detect = useMutation({ mutationFn: options.start, onSuccess: () => queries.invalidateQueries({ queryKey: options.runKey }) });
  return { run, finished, detect, error: detect.error ?? latest.error, busy: detect.isPending || (run !== null && !finished) };
}

/** The run button and the latest run's state line (`describe` words the run's progress and result). */
export function DetectionRun<R extends Run>({
  label,
  describe,
  ...options
}: DetectionRunOptions<R> & { label: string; describe(run: R, finished: boolean): string }) {
  const { run, finished, detect, error, busy } = useDetectionRun(options);
  return (
    <div className="actions">
      <button type="button" onClick={() => detect.mutate()} disabled={busy}>
        {label}
      </button>
      {run && (
        <span className="run" aria-live="polite">
          Last run: {run.status}
          {describe(run, finished)}
          {run.error ? `: ${run.error}` : ''}
        </span>
      )}
      <ErrorLine error={error} />
    </div>
  );
}
