import { randomBytes } from 'node:crypto';
import { type Account, DossierError, isDossierError, responses, type SsoLoginRecord, type SsoPolicy } from '@dossier/core';
import { hashSecret } from '@dossier/core/internal';
import type { Context } from 'koa';
import { z } from 'zod';
import { queryObject } from '../http/body.ts';
import { startSession } from '../http/session-cookie.ts';
import type { SsoProviderConfig } from '../people/config.ts';
import { newSsoChecks, type OidcClients, oidcClients, SsoProviderError } from '../people/oidc.ts';
import { consentPage } from '../pages/consent.ts';
import { sendPage } from '../pages/html.ts';
import { messagePage, signedInPage } from '../pages/people.ts';
import { showConnections } from './connected-clients.ts';
import { type RouteDef, type RouteDeps, route } from './define.ts';
import { checkedRequest } from './oauth.ts';
import { peopleOptions } from './people.ts';

/**
 * Single sign-on with OpenID Connect (issue 42): `/auth/sso/<provider>/start` sends the browser to the identity
 * provider (authorization code with PKCE S256, state and nonce kept server-side by hash for ten minutes, single use);
 * `/auth/sso/<provider>/callback` checks the answer, signs the person in (creating the account when the e-mail is
 * verified and its domain allowed, or linking an invited or existing one) and resumes what started it (`then`): the
 * consent page of an MCP client's authorization request, the connected-clients page, the dashboard (its cookie
 * session, in the browser that started the sign-in), the CLI (a one-time code sent to its loopback listener), or a
 * page with a management token.
 */

const ATTEMPT_TTL_MS = 10 * 60_000;

/** The cookie that ties a dashboard sign-in to the browser that started it (no login CSRF with someone else's answer). */
const BINDING_COOKIE = 'dossier_sso';

const callbackUrl = (deps: RouteDeps, provider: SsoProviderConfig): string => `${deps.publicUrl().replace(/\/+$/, '')}/auth/sso/${provider.id}/callback`;

const policyOf = (provider: SsoProviderConfig): SsoPolicy => ({ allowedDomains: provider.allowedDomains, groupRoles: provider.groupRoles });

/** The provider of the path, or a 404 page. */
function providerOf(clients: OidcClients, ctx: Context): SsoProviderConfig | null {
  const provider = clients.provider(String(ctx.params.providerId));
  if (!provider) sendPage(ctx, 404, messagePage('Single sign-on', 'No identity provider with this name is configured on this server.', 'error'));
  return provider;
}

/** The CLI's loopback listener: a port of 127.0.0.1 and the S256 challenge of the verifier the CLI keeps. */
function cliResume(params: Record<string, string>): Record<string, string> {
  const port = Number(params.port);
  if (!Number.isInteger(port) || port < 1024 || port > 65535)
    throw new DossierError('invalid_input', "then=cli needs port: the port (1024–65535) of the CLI's listener on 127.0.0.1");
  if (!/^[A-Za-z0-9_-]{43}$/.test(params.challenge ?? ''))
    throw new DossierError('invalid_input', "then=cli needs challenge: the base64url S256 challenge of the CLI's verifier (43 characters)");
  return { target: 'cli', port: String(port), challenge: params.challenge! };
}

/**
 * What to resume after sign-in (kept with the attempt): the MCP client's checked authorization request, a `then`
 * target, or null (the signed-in page); false once a refused authorization request was answered.
 */
async function resumeOf(deps: RouteDeps, ctx: Context, params: Record<string, string>): Promise<Record<string, string> | null | false> {
  if (typeof params.client_id === 'string') return (await checkedRequest(deps, ctx, params)) ? params : false;
  switch (params.then ?? '') {
    case '':
      return null;
    case 'connected-clients':
      return { target: 'connected-clients' };
    case 'cli':
      return cliResume(params);
    case 'dashboard': {
      const binding = randomBytes(24).toString('base64url');
      // Lax: the provider's redirect back is a top-level GET from another site, which must carry it.
      ctx.cookies.set(BINDING_COOKIE, binding, {
        httpOnly: true,
        sameSite: 'lax',
        secure: ctx.secure,
        path: '/auth/sso',
        maxAge: ATTEMPT_TTL_MS,
        overwrite: true,
      });
      return { target: 'dashboard', binding: hashSecret(binding) };
    }
    default:
      throw new DossierError('invalid_input', 'then: expected dashboard, cli or connected-clients');
  }
}

/** Send the browser to the provider; what started the sign-in is checked now and kept for later. */
async function start(deps: RouteDeps, clients: OidcClients, ctx: Context): Promise<void> {
  const provider = providerOf(clients, ctx);
  if (!provider) return;
  const resume = await resumeOf(deps, ctx, queryObject(ctx));
  if (resume === false) return;
  const checks = newSsoChecks();
  const url = await clients.authorizationUrl(provider, callbackUrl(deps, provider), checks);
  const createdAt = new Date();
  await deps.dossier.people.sso.remember({
    stateHash: hashSecret(checks.state),
    providerId: provider.id,
    codeVerifier: checks.codeVerifier,
    nonce: checks.nonce,
    context: resume ? JSON.stringify(resume) : null,
    createdAt: createdAt.toISOString(),
    expiresAt: new Date(createdAt.getTime() + ATTEMPT_TTL_MS).toISOString(),
  });
  ctx.redirect(url);
}

/** One callback: its provider, the attempt it answers (taken once) and what that attempt resumes. */
interface Answer {
  deps: RouteDeps;
  clients: OidcClients;
  provider: SsoProviderConfig;
  attempt: SsoLoginRecord;
  state: string;
  resume: Record<string, string> | null;
}

/** The account the provider's answer signs in (checked by openid-client, then by the provider's policy). */
async function admitted(ctx: Context, answer: Answer): Promise<Account> {
  if (typeof ctx.query.error === 'string')
    throw new DossierError('forbidden', `The identity provider did not sign you in: ${ctx.query.error_description ?? ctx.query.error}`);
  // The registered redirect URI with the answer's parameters (behind a proxy, the request's own URL may differ).
  const url = new URL(`${callbackUrl(answer.deps, answer.provider)}?${ctx.querystring}`);
  const identity = await answer.clients.identity(answer.provider, url, { ...answer.attempt, state: answer.state });
  return answer.deps.dossier.people.sso.admit(identity, policyOf(answer.provider));
}

/** Check the provider's answer and sign in where the sign-in started. */
async function callback(deps: RouteDeps, clients: OidcClients, ctx: Context): Promise<void> {
  const provider = providerOf(clients, ctx);
  if (!provider) return;
  const state = typeof ctx.query.state === 'string' ? ctx.query.state : '';
  const attempt = state ? await deps.dossier.people.sso.take(hashSecret(state)) : null;
  if (!attempt || attempt.providerId !== provider.id) throw new DossierError('invalid_input', 'This sign-in has expired or was already used: start again');
  const answer: Answer = { deps, clients, provider, attempt, state, resume: attempt.context ? (JSON.parse(attempt.context) as Record<string, string>) : null };
  if (answer.resume?.target === 'cli') return toCli(ctx, answer);
  if (answer.resume?.target === 'dashboard') return toDashboard(ctx, answer);
  const signedIn = await deps.dossier.auth.startSession(await admitted(ctx, answer), 'sso', { userAgent: ctx.get('user-agent') || null });
  if (!answer.resume) return sendPage(ctx, 200, signedInPage(signedIn.user.email, signedIn.token));
  const claims = await deps.dossier.auth.verifyToken(signedIn.token);
  if (answer.resume.target === 'connected-clients') {
    return showConnections(deps.dossier, ctx, claims, await deps.dossier.oauth.pageSessionFor(claims, { page: 'connections' }));
  }
  const request = await checkedRequest(deps, ctx, answer.resume);
  if (!request) return;
  const session = await deps.dossier.oauth.pageSessionFor(claims, { page: 'consent', clientId: request.client.id });
  sendPage(ctx, 200, consentPage({ request, email: claims.email, session, sandboxes: await deps.dossier.oauth.sandboxes(claims.accountId) }));
}

/** The dashboard's sign-in: its cookie session, in the browser that started it (the binding cookie), then the dashboard. */
async function toDashboard(ctx: Context, answer: Answer): Promise<void> {
  const binding = ctx.cookies.get(BINDING_COOKIE);
  if (!binding || hashSecret(binding) !== answer.resume?.binding) {
    throw new DossierError('forbidden', 'This sign-in was started in another browser: sign in again from the dashboard');
  }
  const account = await admitted(ctx, answer);
  const signedIn = await answer.deps.dossier.auth.startSession(account, 'sso', { userAgent: ctx.get('user-agent') || null });
  ctx.cookies.set(BINDING_COOKIE, '', { httpOnly: true, sameSite: 'lax', secure: ctx.secure, path: '/auth/sso', maxAge: 0, overwrite: true });
  startSession(ctx, signedIn.token);
  ctx.status = 303;
  ctx.redirect('/');
}

/** The CLI's sign-in: a one-time code (or the refusal) to its loopback listener, which redeems it with its verifier. */
async function toCli(ctx: Context, answer: Answer): Promise<void> {
  const loopback = new URL(`http://127.0.0.1:${answer.resume?.port}/callback`);
  try {
    const account = await admitted(ctx, answer);
    loopback.searchParams.set('code', await answer.deps.dossier.people.sso.handOff(account, answer.resume?.challenge ?? ''));
  } catch (err) {
    const refused = refusalOf(err);
    if (!refused) throw err;
    loopback.searchParams.set('error', `${refused.title}: ${refused.message}`);
  }
  ctx.redirect(loopback.href);
}

/** A refusal to show: 403 (domain, unverified e-mail, another browser), 400 (expired or replayed), 502 (the provider's answer). */
function refusalOf(err: unknown): { status: number; title: string; message: string } | null {
  if (err instanceof SsoProviderError) return { status: 502, title: 'Single sign-on failed', message: err.message };
  if (isDossierError(err, 'forbidden')) return { status: 403, title: 'Single sign-on refused', message: err.message };
  if (isDossierError(err, 'invalid_input')) return { status: 400, title: 'Single sign-on failed', message: err.message };
  return null;
}

/** Show a refusal as a page, with the way back to the dashboard's sign-in. */
async function withSsoPages(ctx: Context, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    const refused = refusalOf(err);
    if (!refused) throw err;
    sendPage(ctx, refused.status, messagePage(refused.title, refused.message, 'error', { href: '/', label: 'Back to the sign-in' }));
  }
}

const REDEEM = z.strictObject({
  code: z.string().min(1).max(200).describe('The code the loopback listener received'),
  verifier: z.string().min(43).max(128).describe('The PKCE verifier whose S256 challenge started the sign-in (then=cli)'),
});

const PROVIDERS = z.object({
  passwordSignIn: z.boolean().describe('Whether e-mail and password sign-in is on'),
  providers: z.array(z.object({ id: z.string(), name: z.string(), startUrl: z.string() })),
});

export function ssoRoutes(deps: RouteDeps): RouteDef[] {
  const options = peopleOptions(deps);
  const clients = oidcClients(options.ssoProviders);
  const pass = z.looseObject({}).describe("An MCP client's authorization request to resume after sign-in (the parameters of /oauth/authorize), or nothing");
  return [
    route({
      method: 'post',
      path: '/v1/auth/sso/token',
      operationId: 'redeemSsoCode',
      tag: 'auth',
      auth: 'none',
      body: REDEEM,
      summary: "Redeem the one-time code single sign-on sent to the CLI's loopback listener (with its PKCE verifier) for a JWT (1 hour)",
      responses: {
        200: { description: 'A JWT and the account', schema: responses.login },
        400: 'Invalid input',
        401: 'The verifier does not match',
        404: 'The code expired or was already used',
        429: 'Too many failed attempts from the address',
      },
      handle: async (ctx, { body, reply }) => {
        reply(
          200,
          await deps.limits.linkAttempt(ctx.ip, () => deps.dossier.people.sso.redeem(body.code, body.verifier, { userAgent: ctx.get('user-agent') || null })),
        );
      },
    }),
    route({
      method: 'get',
      path: '/v1/auth/sso/providers',
      operationId: 'listSsoProviders',
      tag: 'auth',
      auth: 'none',
      summary: 'The identity providers people can sign in with, and whether passwords work too',
      responses: { 200: { description: 'The providers', schema: PROVIDERS } },
      handle: async (_ctx, { reply }) =>
        reply(200, {
          passwordSignIn: options.passwordSignIn,
          providers: options.ssoProviders.map((p) => ({ id: p.id, name: p.name, startUrl: `${deps.publicUrl().replace(/\/+$/, '')}/auth/sso/${p.id}/start` })),
        }),
    }),
    {
      method: 'get',
      path: '/auth/sso/:providerId/start',
      operationId: 'ssoStart',
      tag: 'auth',
      auth: 'none',
      produces: 'text/html',
      query: pass,
      summary: 'Start single sign-on: redirects to the identity provider (authorization code, PKCE S256)',
      responses: {
        302: 'To the identity provider',
        400: 'Error page (a bad authorization request)',
        404: 'No such provider',
        502: 'The provider cannot be reached',
      },
      handle: (ctx) => withSsoPages(ctx, () => start(deps, clients, ctx)),
    },
    {
      method: 'get',
      path: '/auth/sso/:providerId/callback',
      operationId: 'ssoCallback',
      tag: 'auth',
      auth: 'none',
      produces: 'text/html',
      query: pass,
      summary: "The identity provider's answer: signs in, then shows the consent page (MCP client) or a management token",
      responses: {
        200: 'Consent page, or the signed-in page',
        400: 'Expired or replayed sign-in',
        403: 'E-mail not verified or its domain not allowed',
        502: "The provider's answer was refused (wrong issuer, bad code…)",
      },
      handle: (ctx) => withSsoPages(ctx, () => callback(deps, clients, ctx)),
    },
  ];
}
