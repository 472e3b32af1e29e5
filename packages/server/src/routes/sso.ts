import { DossierError, hashSecret, isDossierError, type SsoPolicy } from '@dossier/core';
import type { Context } from 'koa';
import { z } from 'zod';
import { queryObject } from '../http/body.ts';
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
 * verified and its domain allowed, or linking an invited or existing one) and resumes what started it: the consent
 * page of an MCP client's authorization request, the connected-clients page, or a page with a management token.
 */

const ATTEMPT_TTL_MS = 10 * 60_000;

const callbackUrl = (deps: RouteDeps, provider: SsoProviderConfig): string => `${deps.publicUrl().replace(/\/+$/, '')}/auth/sso/${provider.id}/callback`;

const policyOf = (provider: SsoProviderConfig): SsoPolicy => ({ allowedDomains: provider.allowedDomains, groupRoles: provider.groupRoles });

/** The provider of the path, or a 404 page. */
function providerOf(clients: OidcClients, ctx: Context): SsoProviderConfig | null {
  const provider = clients.provider(String(ctx.params.providerId));
  if (!provider) sendPage(ctx, 404, messagePage('Single sign-on', 'No identity provider with this name is configured on this server.', 'error'));
  return provider;
}

/** Send the browser to the provider; an MCP client's authorization request (the query) is checked now and kept for later. */
async function start(deps: RouteDeps, clients: OidcClients, ctx: Context): Promise<void> {
  const provider = providerOf(clients, ctx);
  if (!provider) return;
  const params = queryObject(ctx);
  const resumes = typeof params.client_id === 'string' || params.then === 'connected-clients';
  if (typeof params.client_id === 'string' && !(await checkedRequest(deps, ctx, params))) return;
  const checks = newSsoChecks();
  const url = await clients.authorizationUrl(provider, callbackUrl(deps, provider), checks);
  const createdAt = new Date();
  await deps.dossier.people.sso.remember({
    stateHash: hashSecret(checks.state), providerId: provider.id, codeVerifier: checks.codeVerifier, nonce: checks.nonce,
    context: resumes ? JSON.stringify(params) : null, createdAt: createdAt.toISOString(), expiresAt: new Date(createdAt.getTime() + ATTEMPT_TTL_MS).toISOString(),
  });
  ctx.redirect(url);
}

/** Check the provider's answer and sign in; then the consent page (an MCP client waits) or the signed-in page. */
async function callback(deps: RouteDeps, clients: OidcClients, ctx: Context): Promise<void> {
  const provider = providerOf(clients, ctx);
  if (!provider) return;
  const state = typeof ctx.query.state === 'string' ? ctx.query.state : '';
  if (typeof ctx.query.error === 'string') throw new DossierError('forbidden', `The identity provider did not sign you in: ${ctx.query.error_description ?? ctx.query.error}`);
  const attempt = state ? await deps.dossier.people.sso.take(hashSecret(state)) : null;
  if (!attempt || attempt.providerId !== provider.id) throw new DossierError('invalid_input', 'This sign-in has expired or was already used: start again');
  // The registered redirect URI with the answer's parameters (behind a proxy, the request's own URL may differ).
  const identity = await clients.identity(provider, new URL(`${callbackUrl(deps, provider)}?${ctx.querystring}`), { ...attempt, state });
  const signedIn = await deps.dossier.people.sso.signIn(identity, policyOf(provider), { userAgent: ctx.get('user-agent') || null });
  if (!attempt.context) return sendPage(ctx, 200, signedInPage(signedIn.user.email, signedIn.token));
  const context = JSON.parse(attempt.context) as Record<string, string>;
  const claims = await deps.dossier.auth.verifyToken(signedIn.token);
  if (context.then === 'connected-clients') {
    return showConnections(deps.dossier, ctx, claims, await deps.dossier.oauth.pageSessionFor(claims, { page: 'connections' }));
  }
  const request = await checkedRequest(deps, ctx, context);
  if (!request) return;
  const session = await deps.dossier.oauth.pageSessionFor(claims, { page: 'consent', clientId: request.client.id });
  sendPage(ctx, 200, consentPage({ request, email: claims.email, session, sandboxes: await deps.dossier.oauth.sandboxes(claims.accountId) }));
}

/** Show a refusal as a page: 403 (domain, unverified e-mail), 400 (expired or replayed), 502 (the provider's answer). */
async function withSsoPages(ctx: Context, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    if (err instanceof SsoProviderError) return sendPage(ctx, 502, messagePage('Single sign-on failed', err.message, 'error'));
    if (isDossierError(err, 'forbidden')) return sendPage(ctx, 403, messagePage('Single sign-on refused', err.message, 'error'));
    if (isDossierError(err, 'invalid_input')) return sendPage(ctx, 400, messagePage('Single sign-on failed', err.message, 'error'));
    throw err;
  }
}

const PROVIDERS = z.object({
  passwordSignIn: z.boolean().describe('Whether e-mail and password sign-in is on'),
  providers: z.array(z.object({ id: z.string(), name: z.string(), startUrl: z.string() })),
});

export function ssoRoutes(deps: RouteDeps): RouteDef[] {
  const options = peopleOptions(deps);
  const clients = oidcClients(options.ssoProviders);
  const pass = z.looseObject({}).describe('An MCP client\'s authorization request to resume after sign-in (the parameters of /oauth/authorize), or nothing');
  return [
    route({
      method: 'get', path: '/v1/auth/sso/providers', operationId: 'listSsoProviders', tag: 'auth', auth: 'none', summary: 'The identity providers people can sign in with, and whether passwords work too',
      responses: { 200: { description: 'The providers', schema: PROVIDERS } },
      handle: async (_ctx, { reply }) => reply(200, {
        passwordSignIn: options.passwordSignIn,
        providers: options.ssoProviders.map((p) => ({ id: p.id, name: p.name, startUrl: `${deps.publicUrl().replace(/\/+$/, '')}/auth/sso/${p.id}/start` })),
      }),
    }),
    {
      method: 'get', path: '/auth/sso/:providerId/start', operationId: 'ssoStart', tag: 'auth', auth: 'none', produces: 'text/html', query: pass,
      summary: 'Start single sign-on: redirects to the identity provider (authorization code, PKCE S256)',
      responses: { 302: 'To the identity provider', 400: 'Error page (a bad authorization request)', 404: 'No such provider', 502: 'The provider cannot be reached' },
      handle: (ctx) => withSsoPages(ctx, () => start(deps, clients, ctx)),
    },
    {
      method: 'get', path: '/auth/sso/:providerId/callback', operationId: 'ssoCallback', tag: 'auth', auth: 'none', produces: 'text/html', query: pass,
      summary: "The identity provider's answer: signs in, then shows the consent page (MCP client) or a management token",
      responses: { 200: 'Consent page, or the signed-in page', 400: 'Expired or replayed sign-in', 403: 'E-mail not verified or its domain not allowed', 502: "The provider's answer was refused (wrong issuer, bad code…)" },
      handle: (ctx) => withSsoPages(ctx, () => callback(deps, clients, ctx)),
    },
  ];
}
