import type { OAuthStore } from '../ports/oauth-store.ts';
import type { AccountStore } from '../ports/account-store.ts';
import { hashSecret } from '../auth/secrets.ts';
import type { OAuthScope } from '../auth/principal.ts';
import type { ContextPart } from '../context.ts';
import { DossierError } from '../domain/errors.ts';
import type { Env } from '../domain/types.ts';
import type { OAuthClientRecord } from '../ports/oauth-store.ts';
import { newId } from '../util/ids.ts';
import { requireClient } from './clients.ts';
import { OAuthError, type OAuthErrorCode, OAuthRedirectError } from './errors.ts';
import { type AuthorizationRequest, authorizationRequestSchema, parseOAuthInput, parseScopes } from './schemas.ts';
import { isS256Challenge, newOAuthSecret } from './secrets.ts';
import { type GrantableSandbox, grantableSandboxes, scopesAllowed } from './sandboxes.ts';
import { sameResource } from './tokens.ts';

/** Where this authorization server lives: its issuer URL and the one resource it issues tokens for (`…/mcp`). */
export interface OAuthEndpoint {
  issuer: string;
  resource: string;
}

/** An authorization request that passed every check: what the consent page shows and approves. */
export interface CheckedAuthorization {
  client: OAuthClientRecord;
  redirectUri: string;
  codeChallenge: string;
  /** The scopes the client asked for (the page preselects them; empty: `svc:read`). */
  scopes: OAuthScope[];
  state: string | undefined;
  resource: string;
  /** The request's parameters, carried through the login and consent forms. */
  params: AuthorizationRequest;
}

/** The user's answer on the consent page. */
export interface ConsentChoice {
  projectId: string;
  env: Env;
  scope: OAuthScope;
}

/** The redirect URI with the answer's parameters (and `iss`, RFC 9207, so a client can tell which server answered). */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const target = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) target.searchParams.set(name, value);
  return target.toString();
}

/** The redirect URI to answer: the one named (registered exactly), or the only one registered. */
function redirectUriOf(client: OAuthClientRecord, named: string | undefined): string {
  if (named !== undefined && !client.redirectUris.includes(named))
    throw new OAuthError('invalid_request', "redirect_uri is not one of the client's registered redirect URIs");
  const uri = named ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!uri) throw new OAuthError('invalid_request', 'redirect_uri is required: the client registered more than one');
  return uri;
}

/**
 * Check an authorization request (RFC 6749 §4.1.1 with OAuth 2.1's rules): the client and redirect URI first (an error
 * there is shown, never redirected), then response type, PKCE S256 (required; `plain` is refused), scopes and the
 * resource (RFC 8707: only this server's MCP endpoint), each refused by redirecting back with the error.
 */
export async function checkAuthorization(ctx: ContextPart<never, OAuthStore>, raw: unknown, endpoint: OAuthEndpoint): Promise<CheckedAuthorization> {
  const params = parseOAuthInput(authorizationRequestSchema, raw);
  const client = await requireClient(ctx.store, params.client_id);
  const redirectUri = redirectUriOf(client, params.redirect_uri);
  const refuse = (code: OAuthErrorCode, description: string): never => {
    throw new OAuthRedirectError(
      code,
      description,
      redirectWith(redirectUri, { error: code, error_description: description, state: params.state, iss: endpoint.issuer }),
    );
  };
  if (params.response_type !== 'code') refuse('unsupported_response_type', 'response_type must be code');
  if (!params.code_challenge) refuse('invalid_request', 'code_challenge is required (PKCE with S256)');
  if (params.code_challenge_method !== 'S256') refuse('invalid_request', 'code_challenge_method must be S256 (plain PKCE is not accepted)');
  if (!isS256Challenge(params.code_challenge as string))
    refuse('invalid_request', 'code_challenge must be the base64url SHA-256 of the verifier (43 characters)');
  if (params.resource !== undefined && !sameResource(params.resource, endpoint.resource))
    refuse('invalid_target', `This server issues tokens for ${endpoint.resource} only`);
  let scopes: OAuthScope[] = [];
  try {
    scopes = parseScopes(params.scope);
  } catch (err) {
    refuse('invalid_scope', (err as Error).message);
  }
  return { client, redirectUri, codeChallenge: params.code_challenge as string, scopes, state: params.state, resource: endpoint.resource, params };
}

/** The sandbox and scope the user picked, checked against what they may grant (svc:full needs the admin role). */
async function checkChoice(ctx: ContextPart<never, AccountStore>, accountId: string, choice: ConsentChoice): Promise<GrantableSandbox> {
  const sandbox = (await grantableSandboxes(ctx.store, accountId)).find((s) => s.projectId === choice.projectId && s.env === choice.env);
  if (!sandbox) throw new DossierError('invalid_input', 'Choose one of your projects');
  if (!scopesAllowed(sandbox.role, [choice.scope])) throw new DossierError('forbidden', `${choice.scope} needs the admin role in the project's org`);
  return sandbox;
}

/** The user approved: a single-use code bound to the client, redirect URI, PKCE challenge, sandbox, scope and resource. */
export async function approveAuthorization(
  ctx: ContextPart<never, AccountStore & OAuthStore>,
  request: CheckedAuthorization,
  accountId: string,
  choice: ConsentChoice,
  endpoint: OAuthEndpoint,
  times: { now: string; expiresAt: string },
): Promise<string> {
  await checkChoice(ctx, accountId, choice);
  const code = newOAuthSecret('code');
  await ctx.store.createOAuthCode({
    codeHash: hashSecret(code),
    grantId: newId(),
    clientId: request.client.id,
    accountId,
    projectId: choice.projectId,
    env: choice.env,
    scopes: [choice.scope],
    resource: request.resource,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    expiresAt: times.expiresAt,
    usedAt: null,
    createdAt: times.now,
  });
  return redirectWith(request.redirectUri, { code, state: request.state, iss: endpoint.issuer });
}

/** The user declined: back to the client with `access_denied`. */
export function denyAuthorization(request: CheckedAuthorization, endpoint: OAuthEndpoint): string {
  return redirectWith(request.redirectUri, {
    error: 'access_denied',
    error_description: 'The user declined the request',
    state: request.state,
    iss: endpoint.issuer,
  });
}
