import { DossierError, isDossierError, type Logger, type RateDecision, type RateLimiter, type RateLimiterFactory } from '@dossier/core';
import { hashSecret } from '@dossier/core/internal';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context, Next } from 'koa';
import type { ServerConfig } from '../config.ts';
import { givenPrincipal } from './auth.ts';
import { refusalHeaders, refusalTally } from './refusals.ts';
import { sessionCookieOf } from './session-cookie.ts';

/** Paths no limit applies to: health checks (monitors poll them) and the API description. */
const UNLIMITED_PATHS = new Set(['/health', '/v1/health', '/v1/openapi.json']);

/**
 * Whether no limit applies to a request: the unlimited paths, CORS preflights, and presigned upload PUTs (each is
 * authorised by its single-use URL, so an upload of many files is not an anonymous burst).
 */
const isUnlimited = (method: string | undefined, path: string): boolean =>
  UNLIMITED_PATHS.has(path) || method === 'OPTIONS' || (method === 'PUT' && path.startsWith('/v1/uploads/'));

/**
 * The credential a request presents (Bearer header, or `?key=` as the events stream allows, or the dashboard's
 * session cookie), unchecked.
 */
export function presentedCredential(ctx: Context): string | null {
  const header = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'));
  if (header?.[1]) return header[1];
  if (typeof ctx.query.key === 'string' && ctx.query.key) return ctx.query.key;
  return sessionCookieOf(ctx.get('cookie'));
}

/** A bucket name for a caller the host application supplied (createApp's `principal`), limited like a key. */
function hostIdentity(ctx: Context): string | null {
  const caller = givenPrincipal(ctx);
  if (!caller || caller.kind === 'anonymous') return null;
  return `host:${caller.kind}:${'keyId' in caller ? caller.keyId : 'accountId' in caller ? caller.accountId : ''}`;
}

/** The credential of a raw request, as presentedCredential reads it from a Koa context. */
function rawCredential(authorization: string | undefined, url: string, cookie: string | undefined): string | null {
  const header = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
  if (header?.[1]) return header[1];
  const query = url.indexOf('?');
  const key = query < 0 ? null : new URLSearchParams(url.slice(query + 1)).get('key') || null;
  return key ?? sessionCookieOf(cookie);
}

/** The client's address as Koa's `ctx.ip` gives it (the first X-Forwarded-For entry behind a trusted proxy). */
function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  const forwarded = trustProxy
    ? String(req.headers['x-forwarded-for'] ?? '')
        .split(',')[0]
        ?.trim()
    : '';
  return forwarded || req.socket.remoteAddress || '';
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
export function requestLimits(factory: RateLimiterFactory, config: Readonly<ServerConfig>, log?: Logger) {
  const perCredential = optional(factory, 'rl:key', config.rateLimitKey);
  const perAnonymousAddress = optional(factory, 'rl:anon', config.rateLimitAnonymous);
  const failuresPerAddress = optional(factory, 'rl:authfail', config.authFailureLimitAddress);
  const failuresPerAccount = optional(factory, 'rl:login', config.loginLimitAccount);
  let anonymousInFlight = 0;
  /** Buckets (a credential's hash or an address) refused until a time: later requests are refused without Koa. */
  const refusedUntil = new Map<string, number>();

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
    if (isUnlimited(ctx.method, ctx.path)) return next();
    const credential = presentedCredential(ctx) ?? hostIdentity(ctx);
    const limiter = credential ? perCredential : perAnonymousAddress;
    const bucket = credential ? hashSecret(credential) : ctx.ip;
    const decision = await limiter?.consume(bucket);
    if (decision && !decision.allowed) {
      refusedUntil.set(bucket, Date.now() + decision.retryAfterMs);
      throw limited(decision, credential ? 'requests with this key' : 'anonymous requests from this address');
    }
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

  /**
   * Run an attempt with a one-time link (invitation, password reset) throttled like logins: refused while the
   * address has failed too often, and a refusal (unknown link 404, wrong password 401) counts against the address.
   */
  async function linkAttempt<T>(address: string, attempt: () => Promise<T>): Promise<T> {
    await refuseIfBlocked(failuresPerAddress, address, 'failed attempts from this address');
    try {
      return await attempt();
    } catch (err) {
      if (isDossierError(err, 'unauthorized') || isDossierError(err, 'not_found')) await failuresPerAddress?.consume(address);
      throw err;
    }
  }

  /**
   * Count a request that sends mail (a password reset asked for by e-mail) against the e-mail and the address, with
   * the login limits: past either, 429 (the same for known and unknown e-mails, so it reveals nothing).
   */
  async function mailRequest(address: string, email: string): Promise<void> {
    const [forAccount, forAddress] = await Promise.all([
      failuresPerAccount?.consume(`mail:${email.trim().toLowerCase()}`),
      failuresPerAddress?.consume(address),
    ]);
    if (forAccount && !forAccount.allowed) throw limited(forAccount, 'requests for this e-mail');
    if (forAddress && !forAddress.allowed) throw limited(forAddress, 'requests from this address');
  }

  /**
   * Refuse, straight from the HTTP server and before Koa builds a context, a request whose bucket the limiter
   * already refused and whose wait has not passed (issue 9: a burst of refused requests must stay cheap, so other
   * callers keep their latency). The answer is the limiter's own 429; one log line per refused burst second.
   * Returns true when it answered.
   */
  function refuseEarly(req: IncomingMessage, res: ServerResponse): boolean {
    if (refusedUntil.size === 0) return false;
    const url = req.url ?? '/';
    const path = url.split('?', 1)[0]!;
    if (isUnlimited(req.method, path)) return false;
    const credential = rawCredential(req.headers.authorization, url, req.headers.cookie);
    const bucket = credential ? hashSecret(credential) : clientAddress(req, config.trustProxy);
    const until = refusedUntil.get(bucket);
    const now = Date.now();
    if (until === undefined) return false;
    if (until <= now) {
      refusedUntil.delete(bucket);
      return false;
    }
    const seconds = Math.max(1, Math.ceil((until - now) / 1000));
    const what = credential ? 'requests with this key' : 'anonymous requests from this address';
    res.writeHead(429, refusalHeaders(seconds));
    res.end(JSON.stringify({ error: `Too many ${what}; try again in ${seconds} s` }));
    noteEarly(req.method ?? '', what);
    return true;
  }

  /** Early refusals are logged as one line a second per kind (a line per refused request would cost what the early path saves). */
  const tallyEarly = refusalTally((kind, count, method) => log?.info('requests refused early', { status: 429, kind, count, method }));
  let earlyTotal = 0;
  function noteEarly(method: string, what: string): void {
    earlyTotal++;
    tallyEarly(what, method);
  }

  return { middleware, login, linkAttempt, mailRequest, refuseEarly, refusedEarly: () => earlyTotal };
}

export type RequestLimits = ReturnType<typeof requestLimits>;
