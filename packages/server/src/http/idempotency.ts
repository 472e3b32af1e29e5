import { createHash } from 'node:crypto';
import type { Dossier, Principal } from '@dossier/core';
import type { Context } from 'koa';

/** Whose key an Idempotency-Key is: the caller's credential, so two callers' keys never meet. */
function scopeOf(ctx: Context, caller: Principal): string {
  if (caller.kind === 'project_key' || caller.kind === 'org_key') return `key:${caller.keyId}`;
  if (caller.kind === 'user' || caller.kind === 'oauth') return `account:${caller.accountId}`;
  return `address:${ctx.ip}`;
}

/** The request's identity: method, path, and the parsed JSON body (or, for uploads, the body's length and type). */
function fingerprintOf(ctx: Context, body: unknown): string {
  const content = body !== undefined ? JSON.stringify(body) : `${ctx.get('content-type').split(';')[0]} ${ctx.get('content-length')}`;
  return createHash('sha256').update(`${ctx.method} ${ctx.path}\n${content}`).digest('hex');
}

/**
 * Run a creating route under its Idempotency-Key when the request sends one (issue 11): the first run's answer
 * (2xx or 4xx) is kept a day and replayed to retries with `Idempotent-Replayed: true`; a failed run (5xx or an
 * exception) releases the key so a retry runs again.
 */
export async function withIdempotency(dossier: Dossier, ctx: Context, caller: Principal, body: unknown, handle: () => Promise<void>): Promise<void> {
  const key = ctx.get('idempotency-key');
  if (!key) return handle();
  const scope = scopeOf(ctx, caller);
  const started = await dossier.idempotency.begin(scope, key, fingerprintOf(ctx, body));
  if (started.kind === 'replay') {
    ctx.status = started.status;
    ctx.body = JSON.parse(started.body);
    ctx.set('Idempotent-Replayed', 'true');
    return;
  }
  try {
    await handle();
  } catch (err) {
    await dossier.idempotency.abandon(scope, key);
    throw err;
  }
  const answer = ctx.body === null || ctx.body === undefined ? null : JSON.stringify(ctx.body);
  if (ctx.status < 500 && answer !== null) await dossier.idempotency.finish(scope, key, ctx.status, answer);
  else await dossier.idempotency.abandon(scope, key);
}
