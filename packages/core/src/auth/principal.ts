import type { Env } from '../domain/types.ts';
import type { OAUTH_SCOPES } from '../vocabulary.ts';

/** Scopes of OAuth access tokens (spec: Tool server): `svc:full` includes everything `svc:read` allows. */
export { OAUTH_SCOPES } from '../vocabulary.ts';
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

/** What each scope allows, in the spec's words (the consent page and the OpenAPI document show them). */
export const OAUTH_SCOPE_DESCRIPTIONS: Readonly<Record<OAuthScope, string>> = {
  'svc:read': 'Search and read documents, collections, claims and contradictions',
  'svc:full': 'Read, plus create, update and delete, and run agentic operations (research, contradiction detection, deduplication)',
};

/**
 * Who is calling, resolved once per request before its body is read (issue 9). Every route declares the kinds it
 * accepts; the server refuses the others with 401 before the handler runs.
 */
export type Principal =
  /** No credentials: public reads only. */
  | { kind: 'anonymous' }
  /** A project's live or test API key: the data plane of that sandbox. */
  | { kind: 'project_key'; projectId: string; env: Env; keyId: string }
  /** An org-scoped API key: invokes the org's hosted agents. */
  | { kind: 'org_key'; orgId: string; keyId: string }
  /** A person, by a JWT from POST /auth/login; roles come from their org memberships. */
  | { kind: 'user'; accountId: string; email: string; sessionId?: string | null }
  /** An OAuth access token of the tool server, for one project sandbox, with scopes. */
  | { kind: 'oauth'; accountId: string; projectId: string; env: Env; scopes: OAuthScope[]; clientId: string };

export type PrincipalKind = Principal['kind'];
export const PRINCIPAL_KINDS: readonly PrincipalKind[] = ['anonymous', 'project_key', 'org_key', 'user', 'oauth'];

/** Whether an OAuth principal may do what `needed` allows (`svc:full` covers `svc:read`). */
export function hasScope(principal: Extract<Principal, { kind: 'oauth' }>, needed: OAuthScope): boolean {
  return principal.scopes.includes('svc:full') || principal.scopes.includes(needed);
}

/** The project sandbox a data-plane principal acts in (API key or OAuth token), or null. */
export function sandboxOf(principal: Principal): { projectId: string; env: Env } | null {
  if (principal.kind === 'project_key' || principal.kind === 'oauth') return { projectId: principal.projectId, env: principal.env };
  return null;
}
