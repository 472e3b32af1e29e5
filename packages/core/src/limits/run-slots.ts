import type { AccountStore } from '../ports/account-store.ts';
import type { ContextPart } from '../context.ts';
import { DossierError, notFound } from '../domain/errors.ts';
import type { Lease } from '../ports/concurrency-gate.ts';

/**
 * The longest Retry-After a full gate answers: the earliest lease expiry can be minutes away (a lease covers a
 * run's whole time limit), while runs usually end sooner, so the client is told to try again within this.
 */
const MAX_RETRY_HINT_MS = 10_000;

/** A slot for one agent run of the project's org, or null when its plan sets no cap (nothing to release). */
export async function acquireRunSlot(ctx: ContextPart<'gate' | 'plans', AccountStore>, projectId: string, leaseMs: number): Promise<Lease | null> {
  const project = await ctx.store.getProject(projectId);
  if (!project) throw notFound('Project');
  const cap = ctx.plans.ofOrg(project.orgId).concurrentRuns;
  if (cap === null) return null;
  const got = await ctx.gate.acquire(`org:${project.orgId}`, cap, leaseMs);
  if (got.lease) return got.lease;
  throw new DossierError('rate_limited', `The org's ${cap} concurrent agent runs are all in use; try again shortly`, {
    retryAfterMs: Math.min(MAX_RETRY_HINT_MS, Math.max(1000, got.retryAfterMs)),
  });
}

/** Give a run's slot back (a null lease, from an uncapped org, is a no-op). */
export async function releaseRunSlot(ctx: ContextPart<'gate'>, lease: Lease | null): Promise<void> {
  if (lease) await ctx.gate.release(lease);
}
