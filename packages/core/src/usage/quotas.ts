import type { UsageStore } from '../ports/research-store.ts';
import type { ContextPart } from '../context.ts';
import { DossierError } from '../domain/errors.ts';
import type { Env } from '../domain/types.ts';
import type { Plan } from './plans.ts';
import type { z } from 'zod';
import type * as responses from '../responses.ts';

/** A project sandbox: meters and quotas are kept per (project, env). */
export interface Sandbox {
  projectId: string;
  env: Env;
}

/** The usage meters of a sandbox (spec: Usage meters); a null limit is unlimited. */
export type UsageMeters = z.output<typeof responses.usageMeters>;

const MB = 1024 * 1024;

/** Meters count from the first instant of the current calendar month, UTC; the next month starts them again. */
export function billingPeriod(now = new Date()): { start: string; resetsInMs: number } {
  const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return { start: new Date(start).toISOString(), resetsInMs: next - now.getTime() };
}

const planOf = (ctx: ContextPart<'plans'>, sandbox: Sandbox): Plan => ctx.plans.ofProject(sandbox.projectId);
const roundMb = (bytes: number): number => Math.round((bytes / MB) * 1e6) / 1e6;

/** The sandbox's meters for the current period, with its plan's limits. */
export async function usageMeters(ctx: ContextPart<'plans', UsageStore>, sandbox: Sandbox): Promise<UsageMeters> {
  const plan = planOf(ctx, sandbox);
  const [totals, held] = await Promise.all([
    ctx.store.usageTotals(sandbox.projectId, sandbox.env, billingPeriod().start),
    ctx.store.sandboxTotals(sandbox.projectId, sandbox.env),
  ]);
  return {
    meters: {
      queries: { used: totals.queries, limit: plan.queries },
      credits: { used: totals.credits, limit: plan.credits },
      storage: { usedMb: roundMb(held.storageBytes), limitMb: plan.storageMb },
    },
  };
}

/** 429 (with the time until the period resets) when spending `amount` more would pass the period's limit. */
export async function requireMeterRoom(ctx: ContextPart<'plans', UsageStore>, sandbox: Sandbox, meter: 'queries' | 'credits', amount: number): Promise<void> {
  const cap = planOf(ctx, sandbox)[meter];
  if (cap === null) return;
  const period = billingPeriod();
  const used = (await ctx.store.usageTotals(sandbox.projectId, sandbox.env, period.start))[meter];
  if (used + amount <= cap) return;
  const what =
    meter === 'queries'
      ? `query limit (${cap} per month)`
      : `research credit limit (${cap} per month; this run needs ${amount}, ${Math.max(0, cap - used)} left)`;
  throw new DossierError('rate_limited', `The plan's ${what} is reached; it resets at the start of next month (UTC)`, { retryAfterMs: period.resetsInMs });
}

/**
 * Spend `amount` of a meter now, refused with the same 429 as requireMeterRoom when the period's limit would be
 * passed; the check and the spend are one store transaction, so concurrent callers cannot pass the limit together.
 * Give it back with `refundMeter` when the work it paid for did not happen.
 */
export async function spendMeter(ctx: ContextPart<'plans', UsageStore>, sandbox: Sandbox, meter: 'queries' | 'credits', amount: number): Promise<void> {
  const cap = planOf(ctx, sandbox)[meter];
  const period = billingPeriod();
  if (await ctx.store.spendIfRoom(sandbox.projectId, sandbox.env, meter, amount, cap, period.start, new Date().toISOString())) return;
  await requireMeterRoom(ctx, sandbox, meter, amount); // throws the 429 with the period's reset time
  throw new DossierError('rate_limited', `The plan's ${meter} limit is reached`, { retryAfterMs: period.resetsInMs });
}

/** Give back what spendMeter took. */
export async function refundMeter(store: UsageStore, sandbox: Sandbox, meter: 'queries' | 'credits', amount: number): Promise<void> {
  await store.addUsage(sandbox.projectId, sandbox.env, meter, -amount, new Date().toISOString());
}

/** What an upload or a new collection adds to a sandbox. */
export interface Growth {
  collections?: number;
  documents?: number;
  bytes?: number;
}

/** 402 when the growth would pass the plan's collection, document or storage quota. */
export async function requireQuotaRoom(ctx: ContextPart<'plans', UsageStore>, sandbox: Sandbox, growth: Growth): Promise<void> {
  const plan = planOf(ctx, sandbox);
  if (plan.collections === null && plan.documents === null && plan.storageMb === null) return;
  const held = await ctx.store.sandboxTotals(sandbox.projectId, sandbox.env);
  const over = (cap: number | null, now: number, more = 0) => cap !== null && more > 0 && now + more > cap;
  if (over(plan.collections, held.collections, growth.collections)) throw quota(`collection quota (${plan.collections})`);
  if (over(plan.documents, held.documents, growth.documents)) throw quota(`document quota (${plan.documents})`);
  if (plan.storageMb !== null && over(plan.storageMb * MB, held.storageBytes, growth.bytes)) throw quota(`storage quota (${plan.storageMb} MB)`);
}

const quota = (what: string) => new DossierError('payment_required', `The plan's ${what} is reached; delete some or move the project to a larger plan`);
