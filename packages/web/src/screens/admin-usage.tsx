import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { api, type Schemas, unwrap } from '../api.ts';
import { useSession } from '../session.tsx';
import { ErrorLine } from './common.tsx';

type DailyMeter = Schemas['UsageDaily']['meters']['queries'];

const WIDTH = 360;
const HEIGHT = 140;
const PAD = { left: 44, right: 12, top: 12, bottom: 22 };
const fmt = (value: number) => (Number.isInteger(value) ? value.toLocaleString() : value.toLocaleString(undefined, { maximumFractionDigits: 2 }));

function Meter({ label, used, limit, unit }: { label: string; used: number; limit: number | null; unit: string }) {
  return (
    <div className="meter">
      <span>
        {label}: {used.toLocaleString()}
        {unit} {limit === null ? '(no limit)' : `of ${limit.toLocaleString()}${unit}`}
      </span>
      {limit !== null && <progress aria-label={`${label} used`} max={limit} value={Math.min(used, limit)} />}
    </div>
  );
}

/** Days in the month `YYYY-MM`. */
function daysIn(month: string): number {
  const [year, monthNumber] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, monthNumber, 0)).getUTCDate();
}

/**
 * A meter's month as a small SVG chart: the running total day by day against the plan's limit (dashed), the x axis
 * the whole month, so the line stops at today. Read out as one sentence; the table below gives every day.
 */
function UsageChart({ label, month, meter }: { label: string; month: string; meter: DailyMeter }) {
  const titleId = useId();
  const total = daysIn(month);
  const top = Math.max(meter.limit ?? 0, meter.total, 1) * 1.1;
  const x = (day: number) => PAD.left + ((day - 1) / Math.max(1, total - 1)) * (WIDTH - PAD.left - PAD.right);
  const y = (value: number) => HEIGHT - PAD.bottom - (value / top) * (HEIGHT - PAD.top - PAD.bottom);
  const points = meter.days.map((day, index) => `${x(index + 1).toFixed(1)},${y(day.cumulative).toFixed(1)}`).join(' ');
  const last = meter.days.at(-1);
  const summary = `${label} in ${month}: ${fmt(meter.total)} used${meter.limit === null ? ', no limit' : ` of ${fmt(meter.limit)}`}${last ? ` by ${last.date}` : ''}.`;
  return (
    <figure className="usage-chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby={titleId} width={WIDTH} height={HEIGHT}>
        <title id={titleId}>{summary}</title>
        <line className="axis" x1={PAD.left} y1={HEIGHT - PAD.bottom} x2={WIDTH - PAD.right} y2={HEIGHT - PAD.bottom} />
        <line className="axis" x1={PAD.left} y1={PAD.top} x2={PAD.left} y2={HEIGHT - PAD.bottom} />
        <text x={PAD.left - 4} y={y(0)} textAnchor="end" dominantBaseline="middle">
          0
        </text>
        <text x={PAD.left} y={HEIGHT - 6}>
          1
        </text>
        <text x={WIDTH - PAD.right} y={HEIGHT - 6} textAnchor="end">
          {total}
        </text>
        {meter.limit !== null && (
          <>
            <line className="limit" x1={PAD.left} y1={y(meter.limit)} x2={WIDTH - PAD.right} y2={y(meter.limit)} />
            <text x={PAD.left - 4} y={y(meter.limit)} textAnchor="end" dominantBaseline="middle">
              {fmt(meter.limit)}
            </text>
          </>
        )}
        <polyline className={meter.limit !== null && meter.total > meter.limit ? 'used over' : 'used'} points={points} />
      </svg>
      <figcaption>{summary}</figcaption>
      <details>
        <summary>{label} day by day (table)</summary>
        <table className="grid">
          <caption className="visually-hidden">
            {label} used each day of {month}
          </caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Used</th>
              <th scope="col">Month so far</th>
            </tr>
          </thead>
          <tbody>
            {meter.days.map((day) => (
              <tr key={day.date}>
                <td>{day.date}</td>
                <td>{fmt(day.used)}</td>
                <td>{fmt(day.cumulative)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

/** The sandbox's usage meters against the plan's limits (GET /v1/usage), and the month day by day as charts (GET /v1/usage/daily). */
export function UsageSection() {
  const { sandbox } = useSession();
  const usage = useQuery({ queryKey: ['usage', sandbox?.projectId, sandbox?.env], queryFn: async () => unwrap(await api.GET('/v1/usage')) });
  const daily = useQuery({ queryKey: ['usage-daily', sandbox?.projectId, sandbox?.env], queryFn: async () => unwrap(await api.GET('/v1/usage/daily')) });
  const m = usage.data?.meters;
  return (
    <section aria-labelledby="usage-h">
      <h2 id="usage-h">Usage this month ({sandbox?.env} sandbox)</h2>
      <ErrorLine error={usage.error ?? daily.error} />
      {m && (
        <div className="meters">
          <Meter label="Queries" used={m.queries.used} limit={m.queries.limit} unit="" />
          <Meter label="Credits" used={m.credits.used} limit={m.credits.limit} unit="" />
          <Meter label="Storage" used={Math.round(m.storage.usedMb * 10) / 10} limit={m.storage.limitMb} unit=" MB" />
        </div>
      )}
      {daily.data && (
        <div className="usage-charts">
          <UsageChart label="Queries" month={daily.data.month} meter={daily.data.meters.queries} />
          <UsageChart label="Credits" month={daily.data.month} meter={daily.data.meters.credits} />
        </div>
      )}
    </section>
  );
}
