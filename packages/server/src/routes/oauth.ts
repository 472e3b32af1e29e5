import {
  type CheckedAuthorization,
  type ClientCredentials,
  DossierError,
  type Env,
  isDossierError,
  isOAuthError,
  OAUTH_SCOPES,
  type OAuthScope,
  OAuthRedirectError,
  type PagePurpose,
  schemas,
} from '@dossier/core';
import { CLIENT_AUTH_METHODS, GRANT_TYPES } from '@dossier/core/internal';
import type { Context } from 'koa';
import { z } from 'zod';
import { queryObject, readForm, readJson } from '../http/body.ts';
import { type OAuthUrls, oauthUrls } from '../http/oauth-urls.ts';
import { authorizationErrorPage, consentPage, loginPage } from '../pages/consent.ts';
import { sendPage } from '../pages/html.ts';
import { type RouteDef, type RouteDeps, send } from './define.ts';
import { peopleOptions, requirePasswordSignIn } from './people.ts';

/**
 * The OAuth 2.1 authorization server of the MCP endpoint (issue 18): metadata (RFC 8414, RFC 9728), dynamic client
 * registration (RFC 7591), the authorization endpoint with its sign-in and consent pages, the token endpoint
 * (authorization code with PKCE S256, rotating refresh tokens, RFC 8707 resource indicators) and revocation
 * (RFC 7009). Errors take the RFCs' form `{error: <code>, error_description}`. Credentials are never logged: the
 * access log names routes, not query strings, and no handler logs a form.
 */

/** Run an OAuth endpoint, answering its refusals as `{error: <code>, error_description}` (RFC 6749 §5.2). */
async function withOAuthErrors(ctx: Context, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    if (isOAuthError(err)) {
      send(ctx, err.oauthCode === 'invalid_client' ? 401 : 400, { error: err.oauthCode, error_description: err.message });
      if (err.oauthCode === 'invalid_client' && ctx.get('authorization')) ctx.set('WWW-Authenticate', 'Basic realm="dossier"');
      return;
    }
    if (isDossierError(err, 'invalid_input')) {
      send(ctx, 400, { error: 'invalid_request', error_description: err.message });
      return;
    }
    throw err;
  }
}

/** `Authorization: Basic` credentials of a confidential client (RFC 6749 §2.3.1: each part form-urlencoded). */
function clientCredentials(ctx: Context): ClientCredentials {
  const match = /^Basic\s+(\S+)$/i.exec(ctx.get('authorization'));
  if (!match) return { basic: null };
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const part = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));
  if (colon < 0) throw new DossierError('invalid_input', 'Malformed Basic credentials');
  try {
    return { basic: { clientId: part(decoded.slice(0, colon)), secret: part(decoded.slice(colon + 1)) } };
  } catch {
    throw new DossierError('invalid_input', 'Malformed Basic credentials');
  }
}

/** Response schemas, for the OpenAPI document. */
const SERVER_METADATA = z.looseObject({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  registration_endpoint: z.string(),
  revocation_endpoint: z.string(),
  scopes_supported: z.array(z.string()),
  code_challenge_methods_supported: z.array(z.string()),
});
const RESOURCE_METADATA = z.looseObject({
  resource: z.string(),
  authorization_servers: z.array(z.string()),
  scopes_supported: z.array(z.string()),
  bearer_methods_supported: z.array(z.string()),
  resource_name: z.string(),
});
const CLIENT_INFORMATION = z.looseObject({
  client_id: z.string(),
  client_id_issued_at: z.number(),
  client_secret: z.string().optional(),
  redirect_uris: z.array(z.string()),
});
const TOKEN_RESPONSE = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number(),
  refresh_token: z.string(),
  scope: z.string(),
});

/** Authorization server metadata (RFC 8414 §2). */
export function authorizationServerMetadata(urls: OAuthUrls) {
  return {
    issuer: urls.issuer,
    authorization_endpoint: `${urls.issuer}/oauth/authorize`,
    token_endpoint: `${urls.issuer}/oauth/token`,
    registration_endpoint: `${urls.issuer}/oauth/register`,
    revocation_endpoint: `${urls.issuer}/oauth/revoke`,
    scopes_supported: OAUTH_SCOPES,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: GRANT_TYPES,
    token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
  };
}

/** Protected resource metadata of the MCP endpoint (RFC 9728 §2). */
export function protectedResourceMetadata(urls: OAuthUrls) {
  return {
    resource: urls.resource,
    authorization_servers: [urls.issuer],
    scopes_supported: OAUTH_SCOPES,
    bearer_methods_supported: ['header'],
    resource_name: 'Dossier MCP tool server',
  };
}

/** The authorization request, or null after answering: a redirect back with the error, or an error page. */
export async function checkedRequest(deps: RouteDeps, ctx: Context, raw: unknown): Promise<CheckedAuthorization | null> {
  try {
    return await deps.dossier.oauth.checkAuthorization(raw, oauthUrls(deps.publicUrl()));
  } catch (err) {
    if (err instanceof OAuthRedirectError) {
      ctx.redirect(err.location);
      return null;
    }
    if (isOAuthError(err)) {
      sendPage(ctx, 400, authorizationErrorPage(err.message));
      return null;
    }
    throw err;
  }
}

/** The identity providers and whether the password form shows (issue 42). */
export const signInChoices = (deps: RouteDeps) => {
  const options = peopleOptions(deps);
  return { providers: options.ssoProviders.map((p) => ({ id: p.id, name: p.name })), passwordSignIn: options.passwordSignIn };
};

/** A failure of the sign-in form: shown on the page again (wrong password 401, throttled 429). */
const signInFailure = (err: unknown): { status: number; message: string } | null =>
  isDossierError(err, 'unauthorized') || isDossierError(err, 'rate_limited') || isDossierError(err, 'invalid_input') || isDossierError(err, 'forbidden')
    ? { status: SIGN_IN_FAILURE_STATUS[err.code as keyof typeof SIGN_IN_FAILURE_STATUS] ?? 401, message: err.message }
    : null;

const SIGN_IN_FAILURE_STATUS = { rate_limited: 429, invalid_input: 400, forbidden: 403 } as const;

/** Sign in with the page's form, throttled like POST /auth/login; null after answering with the failure. */
export async function signInFromForm(
  deps: RouteDeps,
  ctx: Context,
  form: Record<string, string>,
  purpose: PagePurpose,
  onFailure: (status: number, message: string) => void,
) {
  const credentials = { email: form.email ?? '', password: form.password ?? '' };
  try {
    requirePasswordSignIn(deps);
    return await deps.limits.login(ctx.ip, credentials.email, () => deps.dossier.oauth.signIn(credentials, purpose));
  } catch (err) {
    const failure = signInFailure(err);
    if (!failure) throw err;
    onFailure(failure.status, failure.message);
    return null;
  }
}

/** The consent form's choice: `<projectId>:<env>` and a scope. */
const choiceSchema = z.object({
  sandbox: z.string().regex(/^[0-9a-f-]{36}:(live|test)$/, 'choose a project'),
  scope: z.enum(OAUTH_SCOPES, { message: 'choose the access to grant' }),
});

/** Approve or deny after consent; an invalid choice shows the page again with the error. */
async function decide(deps: RouteDeps, ctx: Context, request: CheckedAuthorization, form: Record<string, string>): Promise<void> {
  const oauth = deps.dossier.oauth;
  const urls = oauthUrls(deps.publicUrl());
  let claims: Awaited<ReturnType<typeof oauth.pageSession>>;
  try {
    claims = await oauth.pageSession(form.session ?? '', { page: 'consent', clientId: request.client.id });
  } catch {
    sendPage(ctx, 401, loginPage(request, 'Your sign-in has expired: sign in again', signInChoices(deps)));
    return;
  }
  if (form.decision === 'deny') return void ctx.redirect(oauth.deny(request, urls));
  try {
    const choice = schemas.parseInput(choiceSchema, { sandbox: form.sandbox, scope: form.granted_scope });
    const [projectId, env] = choice.sandbox.split(':') as [string, Env];
    ctx.redirect(await oauth.approve(request, claims, { projectId, env, scope: choice.scope }, urls));
    ctx.status = 303;
  } catch (err) {
    if (!isDossierError(err, 'invalid_input') && !isDossierError(err, 'forbidden')) throw err;
    const view = { request, email: claims.email, session: form.session ?? '', sandboxes: await oauth.sandboxes(claims.accountId) };
    sendPage(
      ctx,
      err.code === 'forbidden' ? 403 : 400,
      consentPage({ ...view, error: err.message, choice: { sandbox: form.sandbox, scope: form.granted_scope as OAuthScope } }),
    );
  }
}

const formSchema = (fields: Record<string, string>) =>
  z.object(Object.fromEntries(Object.entries(fields).map(([name, about]) => [name, z.string().optional().describe(about)])));

const AUTHORIZE_FIELDS = {
  response_type: 'code',
  client_id: 'The registered client',
  redirect_uri: 'One of the registered redirect URIs',
  code_challenge: 'base64url(sha256(code_verifier))',
  code_challenge_method: 'S256 (required)',
  scope: 'svc:read or svc:full',
  state: 'Returned as sent',
  resource: 'The MCP endpoint (RFC 8707)',
};
const TOKEN_FIELDS = {
  grant_type: 'authorization_code or refresh_token',
  code: 'authorization_code: the code',
  redirect_uri: 'authorization_code: as in the authorization request',
  code_verifier: 'authorization_code: the PKCE verifier',
  refresh_token: 'refresh_token: the latest refresh token',
  scope: 'refresh_token: a subset of the granted scope',
  resource: 'The MCP endpoint (RFC 8707)',
  client_id: 'Public and client_secret_post clients',
  client_secret: 'client_secret_post clients',
};

function metadataRoutes(deps: RouteDeps): RouteDef[] {
  const resourceMetadata = (path: string, operationId: string): RouteDef => ({
    method: 'get',
    path,
    operationId,
    tag: 'oauth',
    auth: 'none',
    summary: 'Protected resource metadata of the MCP endpoint (RFC 9728): its authorization server and scopes',
    responses: { 200: { description: 'The MCP resource and its authorization server', schema: RESOURCE_METADATA } },
    handle: async (ctx) => send(ctx, 200, protectedResourceMetadata(oauthUrls(deps.publicUrl()))),
  });
  return [
    {
      method: 'get',
      path: '/.well-known/oauth-authorization-server',
      operationId: 'oauthAuthorizationServerMetadata',
      tag: 'oauth',
      auth: 'none',
      summary: 'Authorization server metadata (RFC 8414)',
      responses: { 200: { description: 'issuer, endpoints, scopes, S256 only', schema: SERVER_METADATA } },
      handle: async (ctx) => send(ctx, 200, authorizationServerMetadata(oauthUrls(deps.publicUrl()))),
    },
    // RFC 9728 §3.1 puts the resource's path after the well-known name; clients also try the bare name.
    resourceMetadata('/.well-known/oauth-protected-resource/mcp', 'oauthProtectedResourceMetadata'),
    resourceMetadata('/.well-known/oauth-protected-resource', 'oauthProtectedResourceMetadataAtRoot'),
  ];
}

function authorizeRoutes(deps: RouteDeps): RouteDef[] {
  const oauth = deps.dossier.oauth;
  return [
    {
      method: 'get',
      path: '/oauth/authorize',
      operationId: 'oauthAuthorize',
      tag: 'oauth',
      auth: 'none',
      produces: 'text/html',
      query: formSchema(AUTHORIZE_FIELDS),
      summary: 'Authorization endpoint: the sign-in page of the consent flow (PKCE S256 required; resource must be the MCP endpoint)',
      responses: {
        200: 'Sign-in page',
        302: 'Back to the client with error (invalid scope, plain PKCE, wrong resource…)',
        400: 'Error page (unknown client or redirect URI)',
      },
      handle: async (ctx) => {
        const request = await checkedRequest(deps, ctx, queryObject(ctx));
        if (request) sendPage(ctx, 200, loginPage(request, undefined, signInChoices(deps)));
      },
    },
    {
      method: 'post',
      path: '/oauth/authorize',
      operationId: 'oauthSignIn',
      tag: 'oauth',
      auth: 'none',
      produces: 'text/html',
      rawBody: {
        type: 'application/x-www-form-urlencoded',
        schema: formSchema({ ...AUTHORIZE_FIELDS, email: 'Account e-mail', password: 'Account password' }),
      },
      summary: 'Sign in on the consent flow: shows the consent page (project and scope)',
      responses: {
        200: 'Consent page',
        302: 'Back to the client with error',
        400: 'Error page',
        401: 'Sign-in page again (wrong e-mail or password)',
        429: 'Sign-in page again (too many failed sign-ins)',
      },
      handle: async (ctx) => {
        const form = await readForm(ctx);
        const request = await checkedRequest(deps, ctx, form);
        if (!request) return;
        const purpose = { page: 'consent', clientId: request.client.id } as const;
        const signedIn = await signInFromForm(deps, ctx, form, purpose, (status, message) =>
          sendPage(ctx, status, loginPage(request, message, signInChoices(deps))),
        );
        if (!signedIn) return;
        const sandboxes = await oauth.sandboxes(signedIn.claims.accountId);
        sendPage(ctx, 200, consentPage({ request, email: signedIn.claims.email, session: signedIn.session, sandboxes }));
      },
    },
    {
      method: 'post',
      path: '/oauth/authorize/consent',
      operationId: 'oauthConsent',
      tag: 'oauth',
      auth: 'none',
      produces: 'text/html',
      rawBody: {
        type: 'application/x-www-form-urlencoded',
        schema: formSchema({
          ...AUTHORIZE_FIELDS,
          session: 'The sign-in page session',
          sandbox: '<projectId>:<live|test>',
          granted_scope: "svc:read or svc:full (the choice; scope is the request's)",
          decision: 'allow or deny',
        }),
      },
      summary: 'The consent decision: redirects to the client with a code (allow) or access_denied (deny)',
      responses: {
        303: 'Back to the client with code, state and iss',
        302: 'Back to the client with access_denied',
        400: 'Consent page again (no project chosen)',
        401: 'Sign-in page again (sign-in expired)',
        403: 'Consent page again (svc:full needs the admin role)',
      },
      handle: async (ctx) => {
        const form = await readForm(ctx);
        const request = await checkedRequest(deps, ctx, form);
        if (request) await decide(deps, ctx, request, form);
      },
    },
  ];
}

function tokenRoutes(deps: RouteDeps): RouteDef[] {
  const oauth = deps.dossier.oauth;
  const refusals = {
    400: '{error: invalid_request | invalid_grant | invalid_scope | invalid_target | unsupported_grant_type, error_description}',
    401: '{error: invalid_client, error_description}',
  };
  return [
    {
      method: 'post',
      path: '/oauth/register',
      operationId: 'oauthRegister',
      tag: 'oauth',
      auth: 'none',
      rawBody: {
        type: 'application/json',
        schema: z.looseObject({
          redirect_uris: z.array(z.string()),
          token_endpoint_auth_method: z.enum(CLIENT_AUTH_METHODS).optional(),
          client_name: z.string().optional(),
        }),
      },
      summary: 'Dynamic client registration (RFC 7591): public clients (token_endpoint_auth_method none) get no secret',
      responses: {
        201: {
          description: 'The client information: client_id, client_id_issued_at, the metadata as registered, and client_secret for confidential clients',
          schema: CLIENT_INFORMATION,
        },
        400: '{error: invalid_client_metadata | invalid_redirect_uri, error_description}',
      },
      handle: (ctx) => withOAuthErrors(ctx, async () => send(ctx, 201, await oauth.register(await readJson(ctx)))),
    },
    {
      method: 'post',
      path: '/oauth/token',
      operationId: 'oauthToken',
      tag: 'oauth',
      auth: 'none',
      rawBody: { type: 'application/x-www-form-urlencoded', schema: formSchema(TOKEN_FIELDS) },
      summary: 'Token endpoint: exchange a code (with its PKCE verifier) or a refresh token (rotated: each is good once) for tokens',
      responses: { 200: { description: 'The tokens', schema: TOKEN_RESPONSE }, ...refusals },
      handle: (ctx) =>
        withOAuthErrors(ctx, async () => {
          const credentials = clientCredentials(ctx);
          send(ctx, 200, await oauth.token(await readForm(ctx), credentials));
          ctx.set('Pragma', 'no-cache');
        }),
    },
    {
      method: 'post',
      path: '/oauth/revoke',
      operationId: 'oauthRevoke',
      tag: 'oauth',
      auth: 'none',
      rawBody: {
        type: 'application/x-www-form-urlencoded',
        schema: formSchema({
          token: 'An access or refresh token',
          token_type_hint: 'access_token or refresh_token (not needed)',
          client_id: 'Public clients',
          client_secret: 'client_secret_post clients',
        }),
      },
      summary: 'Revocation (RFC 7009): a refresh token ends its whole connection, an access token itself; unknown tokens answer the same',
      responses: { 200: { description: 'Revoked (or nothing to revoke)', schema: z.object({}) }, ...refusals },
      handle: (ctx) =>
        withOAuthErrors(ctx, async () => {
          const credentials = clientCredentials(ctx);
          await oauth.revoke(await readForm(ctx), credentials);
          send(ctx, 200, {});
        }),
    },
  ];
}

/** Every route of the authorization server (the connected-clients page and API are in connected-clients.ts). */
export function oauthRoutes(deps: RouteDeps): RouteDef[] {
  return [...metadataRoutes(deps), ...authorizeRoutes(deps), ...tokenRoutes(deps)];
}
