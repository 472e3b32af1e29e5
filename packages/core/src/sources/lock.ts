import type { CollectionSourceStore } from '../ports/source-store.ts';
import type { ContextPart } from '../context.ts';
import { newId } from '../util/ids.ts';

const LOCK_POLL_MS = 250;

/**
 * Run `fn` holding the source's run lock, kept in the metadata store so runs of one source never overlap, whichever
 * nodes run them: waits while another run holds it, renews the lease (lockMs) while `fn` runs, and releases it after.
 * A crashed holder's lock ends with its lease. Null (nothing run) when the source was removed while waiting.
 */
export async function withSourceLock<T>(
  ctx: ContextPart<'log', CollectionSourceStore>,
  sourceId: string,
  lockMs: number,
  fn: () => Promise<T>,
): Promise<T | null> {
  const owner = newId();
  const until = () => new Date(Date.now() + lockMs).toISOString();
  while (!(await ctx.store.lockSource(sourceId, owner, until()))) {
    if (!(await ctx.store.getSource(sourceId))) return null;
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
  const renew = setInterval(
    () => {
      ctx.store.lockSource(sourceId, owner, until()).catch((err) => ctx.log.warn('source lock renewal failed', { sourceId, error: String(err) }));
    },
    Math.max(50, Math.floor(lockMs / 3)),
  );
  try {
    return await fn();
  } finally {
    clearInterval(renew);
    await ctx.store.unlockSource(sourceId, owner).catch((err) => ctx.log.warn('source unlock failed', { sourceId, error: String(err) }));
  }
}
