import { DossierError, hashSecret, isDossierError, type RateDecision, type RateLimiter, type RateLimiterFactory } from '@dossier/core';
import type { Context, Next } from 'koa';
import type { ServerConfig } from '../config.ts';

/** Paths no limit applies to: health checks (monitors poll them) and the API description. */
const UNLIMITED_PATHS = new Set(['/health', '/v1/health', '/v1/openapi.json']);
/** A presigned upload PUT is authorised by its single-use URL, so an upload of many files is not an anonymous burst. */
const isPresignedUpload = (ctx: Context) => ctx.method === 'PUT' && ctx.path.startsWith('/v1/uploads/');

/** The credential a request presents (Bearer header, or `?key=` as the events stream allows), unchecked. */
export function presentedCredential(ctx: Context): string | null {
  const header = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'));
  if (header?.[1]) return header[1];
  return typeof ctx.query.key === 'string' && ctx.query.key ? ctx.query.key : null;
}

/** 429 with the wait the limiter reported (the error middleware turns it into `Retry-After`). */
export function limited(decision: RateDecision, what: string): DossierError {
  return new DossierError('rate_limited', `Too many ${what}; try again in ${Math.max(1, Math.ceil(decision.retryAfterMs / 1000))} s`, {
    retryAfterMs: decision.retryAfterMs,
  });
}

/** Null when a limit is switched off. */
const optional = (factory: RateLimiterFactory, name: string, spec: ServerConfig['rateLimitKey']): RateLimiter | null =>
  spec ? factory.create(name, spec) : null;

/** The request-level limits of one server: per credential, per anonymous address, auth failures, logins. */
export function requestLimits(factory: RateLimiterFactory, config: Readonly<ServerConfig>) {
  const perCredential = optional(factory, 'rl:key', config.rateLimitKey);
  const perAnonymousAddress = optional(factory, 'rl:anon', config.rateLimitAnonymous);
  const failuresPerAddress = optional(factory, 'rl:authfail', config.authFailureLimitAddress);
  const failuresPerAccount = optional(factory, 'rl:login', config.loginLimitAccount);
  let anonymousInFlight = 0;

  const refuseIfBlocked = async (limiter: RateLimiter | null, key: string, what: string) => {
    const d = await limiter?.peek(key);
    if (d && !d.allowed) throw limited(d, what);
  };

  /**
   * Spend one point per request before anything else runs (so before the body is read): per credential when one
   * is presented (its hash names the bucket, so the limit holds before the key is even looked up), else per client
   * address. Invalid credentials count against their address; past its limit, every further failing credential
   * from it gets 429 instead of 401 (a valid key from the same address keeps working).
   */
  async function middleware(ctx: Context, next: Next): Promise<void> {
    if (UNLIMITED_PATHS.has(ctx.path) || isPresignedUpload(ctx) || ctx.method === 'OPTIONS') return next();
    const credential = presentedCredential(ctx);
    const limiter = credential ? perCredential : perAnonymousAddress;
    const decision = await limiter?.consume(credential ? hashSecret(credential) : ctx.ip);
    if (decision && !decision.allowed) throw limited(decision, credential ? 'requests with this key' : 'anonymous requests from this address');
    if (!credential) return anonymousSlot(next);
    try {
      await next();
    } catch (err) {
      if (!credential || !isDossierError(err, 'unauthorized') || !failuresPerAddress) throw err;
      const failure = await failuresPerAddress.consume(ctx.ip);
      throw failure.allowed ? err : limited(failure, 'failed authentications from this address');
    }
  }

  /** Serve an anonymous request within the node's cap on anonymous requests at once (none when the cap is 0). */
  async function anonymousSlot(next: Next): Promise<void> {
    const cap = config.anonymousConcurrency;
    if (cap > 0 && anonymousInFlight >= cap) throw limited({ allowed: false, remaining: 0, retryAfterMs: 1000 }, 'anonymous requests at once on this server');
    anonymousInFlight++;
    try {
      await next();
    } finally {
      anonymousInFlight--;
    }
  }

  /**
   * Run a login attempt unless the account or the address has failed too often; a failure counts against both,
   * a success clears the account's count. A throttled login is refused before the password is checked.
   */
  async function login<T>(address: string, email: string, attempt: () => Promise<T>): Promise<T> {
    const account = email.trim().toLowerCase();
    await refuseIfBlocked(failuresPerAccount, account, 'failed logins for this account');
    await refuseIfBlocked(failuresPerAddress, address, 'failed logins from this address');
    try {
      const result = await attempt();
      await failuresPerAccount?.reset(account);
      return result;
    } catch (err) {
      if (isDossierError(err, 'unauthorized')) await Promise.all([failuresPerAccount?.consume(account), failuresPerAddress?.consume(address)]);
      throw err;
    }
  }

  return { middleware, login };
}

export type RequestLimits = ReturnType<typeof requestLimits>;
