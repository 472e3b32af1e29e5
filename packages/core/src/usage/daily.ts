import type { UsageStore } from '../ports/research-store.ts';
import type { ContextPart } from '../context.ts';
import { DossierError } from '../domain/errors.ts';
import type { UsageMeter } from '../domain/types.ts';
import * as schemas from '../schemas.ts';
import type { Sandbox } from './quotas.ts';
import type { z } from 'zod';
import type * as responses from '../responses.ts';

/** One day of a meter: what was used that day (UTC) and the month's total up to and including it. */
export type UsageDay = DailyMeter['days'][number];

/** A meter's month day by day, against its plan limit (null: unlimited). */
export type DailyMeter = z.output<typeof responses.dailyMeter>;

/**
 * A sandbox's usage of one calendar month (UTC) day by day, for charts (GET /v1/usage/daily): every day of the
 * month, up to today for the current month. Storage is what the sandbox holds now (it has no history).
 */
export type UsageDaily = z.output<typeof responses.usageDaily>;

const METERS: UsageMeter[] = ['queries', 'credits'];
const DAY_MS = 86_400_000;
/** Sums are kept to this many decimals (credits are fractional; float sums drift). */
const round = (value: number): number => Math.round(value * 1e6) / 1e6;

/** The month's first instant, the first instant after it, and its last day to show (today for the current month). */
export function monthRange(month: string | undefined, now = new Date()): { month: string; start: Date; end: Date; lastDay: Date } {
  const current = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
  const chosen = month ?? current;
  if (chosen > current) throw new DossierError('invalid_input', `month: ${chosen} has not started yet (this month is ${current})`);
  const [year, monthNumber] = chosen.split('-').map(Number) as [number, number];
  const start = new Date(Date.UTC(year, monthNumber - 1, 1));
  const end = new Date(Date.UTC(year, monthNumber, 1));
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  return { month: chosen, start, end, lastDay: chosen === current ? today : new Date(end.getTime() - DAY_MS) };
}

/** Every day of the range with its amount (0 when nothing was used) and the running total. */
function series(amounts: Map<string, number>, start: Date, lastDay: Date): UsageDay[] {
  const days: UsageDay[] = [];
  let cumulative = 0;
  for (let at = start.getTime(); at <= lastDay.getTime(); at += DAY_MS) {
    const date = new Date(at).toISOString().slice(0, 10);
    const used = round(amounts.get(date) ?? 0);
    cumulative = round(cumulative + used);
    days.push({ date, used, cumulative });
  }
  return days;
}

/** The sandbox's meters of a month (`month` YYYY-MM, default the current one), day by day, with the plan's limits. */
export async function usageDaily(ctx: ContextPart<'plans', UsageStore>, sandbox: Sandbox, rawQuery: unknown = {}): Promise<UsageDaily> {
  const query = schemas.parseInput(schemas.usageDailyQuerySchema, rawQuery);
  const range = monthRange(query.month);
  const plan = ctx.plans.ofProject(sandbox.projectId);
  const [rows, held] = await Promise.all([
    ctx.store.usageByDay(sandbox.projectId, sandbox.env, range.start.toISOString(), range.end.toISOString()),
    ctx.store.sandboxTotals(sandbox.projectId, sandbox.env),
  ]);
  const meters = {} as UsageDaily['meters'];
  for (const meter of METERS) {
    const amounts = new Map(rows.filter((row) => row.meter === meter).map((row) => [row.date, row.amount]));
    const days = series(amounts, range.start, range.lastDay);
    meters[meter] = { limit: plan[meter], total: days.at(-1)?.cumulative ?? 0, days };
  }
  return { month: range.month, meters, storage: { usedMb: Math.round((held.storageBytes / (1024 * 1024)) * 1e6) / 1e6, limitMb: plan.storageMb } };
}
