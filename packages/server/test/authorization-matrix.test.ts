import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../src/app.ts';
import { checkRoleDeclaration } from '../src/http/roles.ts';
import type { AnyRoute, RouteDef, RouteRole } from '../src/routes/define.ts';
import { startTestServer, type TestServer } from './helpers.ts';
import { tokensFor } from './oauth-client.ts';
import { dossierContext } from '@dossier/core/testing';

/**
 * The authorization matrix (issue 9): every route of the API × every kind of caller, with the status each may get.
 * Each route has a row naming its access profile; a route without a row (or a row without a route) fails, so no
 * route ships without a decision about who may call it. The profiles turn into per-caller expectations below.
 */

type Profile =
  /** No credentials read: login, health, the OpenAPI document. */
  | 'open'
  /** The presigned upload PUT: its URL token is the credential (headers are never read; a bad token is 401). */
  | 'upload-token'
  /** A project API key of the sandbox that owns the resource in the path. */
  | 'key-owned'
  /** Any project API key, acting in its own sandbox (lists and creations). */
  | 'key-sandbox'
  /** The project in the path, by either of its keys, each in its own sandbox (provider keys). */
  | 'key-project'
  /** Reads of a collection's content: its owner's key, or anyone when the collection is public. */
  | 'public-read'
  /** Any logged-in user (their own orgs). */
  | 'jwt-user'
  /** A member (or admin) of the org in the path. */
  | 'jwt-member'
  /** An admin of the org in the path. */
  | 'jwt-admin'
  /** A member of the org in the path, or the project's live key (webhook management). */
  | 'jwt-or-live-key'
  /** An admin of the org in the path, or the project's live key (webhook writes; issue 33: a member gets 403). */
  | 'jwt-admin-or-live-key'
  /** A member of the org in the path, or an API key of that org (invoking hosted agents). */
  | 'jwt-or-org-key'
  /** Any project API key in its own sandbox, or an OAuth access token of the MCP endpoint (issue 18: /mcp). */
  | 'key-or-oauth';

const ORG = '/v1/orgs/:orgId/projects/:projectId';
const ROWS: Record<string, Profile> = {
  'POST /auth/login': 'open',
  'GET /orgs': 'jwt-user',
  'GET /orgs/:orgId/projects': 'jwt-member',
  'POST /v1/auth/login': 'open',
  'GET /v1/orgs': 'jwt-user',
  'GET /v1/orgs/:orgId/projects': 'jwt-member',
  'POST /v1/orgs': 'jwt-user',
  'PATCH /v1/orgs/:orgId': 'jwt-admin',
  'DELETE /v1/orgs/:orgId': 'jwt-admin',
  'POST /v1/orgs/:orgId/projects': 'jwt-admin',
  [`PATCH ${ORG}`]: 'jwt-admin',
  [`DELETE ${ORG}`]: 'jwt-admin',
  'GET /v1/orgs/:orgId/members': 'jwt-member',
  'PUT /v1/orgs/:orgId/members': 'jwt-admin',
  'DELETE /v1/orgs/:orgId/members/:accountId': 'jwt-admin',
  'POST /v1/auth/password': 'jwt-user',
  'POST /v1/auth/logout-all': 'jwt-user',
  'POST /v1/collections': 'key-sandbox',
  'GET /v1/collections': 'key-sandbox',
  'GET /v1/collections/:id': 'public-read',
  'GET /v1/collections/:id/stats': 'public-read',
  'POST /v1/collections/:id/describe': 'key-owned',
  'PATCH /v1/collections/:id': 'key-owned',
  'PUT /v1/collections/:id': 'key-owned',
  'DELETE /v1/collections/:id': 'key-owned',
  'POST /v1/collections/:id/documents/upload-url': 'key-owned',
  'PUT /v1/uploads/:token': 'upload-token',
  'POST /v1/collections/:id/documents/:docId/confirm': 'key-owned',
  'POST /v1/collections/:id/documents/batch-confirm': 'key-owned',
  'POST /v1/collections/:id/documents': 'key-owned',
  'POST /v1/collections/:id/documents/batch': 'key-owned',
  'GET /v1/collections/:id/documents': 'public-read',
  'DELETE /v1/collections/:id/documents/batch': 'key-owned',
  'POST /v1/collections/:id/documents/batch-delete': 'key-owned',
  'POST /v1/collections/:id/documents/retry-failed': 'key-owned',
  'PATCH /v1/collections/:id/documents/bulk': 'key-owned',
  'PATCH /v1/collections/:id/documents/:docId': 'key-owned',
  'GET /v1/collections/:id/tags': 'public-read',
  'POST /v1/collections/:id/documents/search': 'public-read',
  'GET /v1/documents/:id': 'public-read',
  'GET /v1/documents/:id/wait': 'public-read',
  'GET /v1/documents/:id/markdown': 'public-read',
  'GET /v1/documents/:id/sections': 'public-read',
  'DELETE /v1/documents/:id': 'key-owned',
  'POST /v1/documents/:id/retry': 'key-owned',
  'GET /v1/documents/:id/images': 'public-read',
  'GET /v1/documents/:id/images/:imageId': 'public-read',
  'GET /v1/documents/:id/chunks/captions': 'public-read',
  'GET /v1/collections/:id/documents/events': 'public-read',
  'GET /v1/documents/:id/pages/:page/image': 'public-read',
  'POST /v1/collections/:id/query': 'public-read',
  'POST /v1/collections/:id/sections/scan': 'public-read',
  'GET /v1/sections/:id': 'public-read',
  'GET /v1/sections/:id/chunks': 'public-read',
  'POST /v1/collections/:id/research': 'key-owned',
  'POST /v1/collections/:id/research/sync': 'key-owned',
  'GET /v1/collections/:id/research': 'key-owned',
  'GET /v1/collections/:id/research/:sessionId': 'key-owned',
  'DELETE /v1/collections/:id/research/:sessionId': 'key-owned',
  'POST /v1/projects/:id/provider-keys': 'key-project',
  'GET /v1/projects/:id/provider-keys': 'key-project',
  'DELETE /v1/projects/:id/provider-keys/:keyId': 'key-owned',
  'POST /v1/collections/:id/recompute/summaries': 'key-owned',
  'PATCH /v1/collections/:id/recompute/summaries': 'key-owned',
  'POST /v1/collections/:id/recompute/captions': 'key-owned',
  'PATCH /v1/collections/:id/recompute/captions': 'key-owned',
  'GET /v1/documents/:id/claims': 'key-owned',
  'GET /v1/collections/:id/claims/map': 'key-owned',
  'POST /v1/collections/:id/recompute/claims': 'key-owned',
  'PATCH /v1/collections/:id/recompute/claims': 'key-owned',
  'GET /v1/collections/:id/contradictions/files': 'key-owned',
  'POST /v1/collections/:id/contradictions/detect': 'key-owned',
  'GET /v1/collections/:id/contradictions/runs/latest': 'key-owned',
  'GET /v1/collections/:id/contradictions': 'key-owned',
  'PATCH /v1/collections/:id/contradictions/:contradictionId': 'key-owned',
  'POST /v1/collections/:id/contradictions/:contradictionId': 'key-owned',
  'POST /v1/collections/:id/contradictions/:contradictionId/apply-instruction': 'key-owned',
  'GET /v1/usage': 'key-sandbox',
  'GET /v1/usage/daily': 'key-sandbox',
  'POST /v1/collections/:id/duplicates/detect': 'key-owned',
  'GET /v1/collections/:id/duplicates/runs/latest': 'key-owned',
  'GET /v1/collections/:id/duplicates': 'key-owned',
  'GET /v1/collections/:id/duplicates/:groupId/compare': 'key-owned',
  'PATCH /v1/collections/:id/duplicates/:groupId': 'key-owned',
  'POST /v1/collections/:id/duplicates/:groupId': 'key-owned',
  'DELETE /v1/collections/:id/duplicates/:groupId': 'key-owned',
  [`POST ${ORG}/agents`]: 'jwt-admin',
  [`GET ${ORG}/agents`]: 'jwt-member',
  [`GET ${ORG}/agents/:agentId`]: 'jwt-member',
  [`PATCH ${ORG}/agents/:agentId`]: 'jwt-admin',
  [`DELETE ${ORG}/agents/:agentId`]: 'jwt-admin',
  [`POST ${ORG}/agents/:agentSlug/invoke`]: 'jwt-or-org-key',
  [`POST ${ORG}/agents/:agentSlug/invoke/sync`]: 'jwt-or-org-key',
  [`POST ${ORG}/agents/:agentSlug/preview`]: 'jwt-admin',
  [`GET ${ORG}/agents/:agentSlug/runs`]: 'jwt-member',
  [`GET ${ORG}/agents/:agentSlug/runs/:runId`]: 'jwt-member',
  [`GET ${ORG}/agents/:agentSlug/runs/:runId/steps`]: 'jwt-member',
  [`DELETE ${ORG}/agents/:agentSlug/runs/:runId`]: 'jwt-member',
  [`GET ${ORG}/webhooks`]: 'jwt-or-live-key',
  [`POST ${ORG}/webhooks`]: 'jwt-admin-or-live-key',
  [`PATCH ${ORG}/webhooks/:endpointId`]: 'jwt-admin-or-live-key',
  [`DELETE ${ORG}/webhooks/:endpointId`]: 'jwt-admin-or-live-key',
  [`GET ${ORG}/webhooks/:endpointId/deliveries`]: 'jwt-or-live-key',
  [`POST ${ORG}/webhooks/:endpointId/deliveries/:id/retry`]: 'jwt-admin-or-live-key',
  [`POST ${ORG}/webhooks/:endpointId/test`]: 'jwt-admin-or-live-key',
  [`GET ${ORG}/api-keys`]: 'jwt-admin',
  [`POST ${ORG}/api-keys`]: 'jwt-admin',
  [`POST ${ORG}/api-keys/:keyId/rotate`]: 'jwt-admin',
  [`DELETE ${ORG}/api-keys/:keyId`]: 'jwt-admin',
  'GET /v1/orgs/:orgId/api-keys': 'jwt-admin',
  'POST /v1/orgs/:orgId/api-keys': 'jwt-admin',
  'DELETE /v1/orgs/:orgId/api-keys/:keyId': 'jwt-admin',
  [`GET ${ORG}/mcp-clients`]: 'jwt-admin',
  [`DELETE ${ORG}/mcp-clients/:connectionId`]: 'jwt-admin',
  'GET /.well-known/oauth-authorization-server': 'open',
  'GET /.well-known/oauth-protected-resource': 'open',
  'GET /.well-known/oauth-protected-resource/mcp': 'open',
  'GET /oauth/authorize': 'open',
  'POST /oauth/authorize': 'open',
  'POST /oauth/authorize/consent': 'open',
  'POST /oauth/register': 'open',
  'POST /oauth/token': 'open',
  'POST /oauth/revoke': 'open',
  'GET /oauth/connected-clients': 'open',
  'POST /oauth/connected-clients': 'open',
  'POST /oauth/connected-clients/revoke': 'open',
  'GET /v1/openapi.json': 'open',
  'GET /health': 'open',
  'GET /v1/health': 'open',
  // Issue 42: people on a team (invitations, accounts, sessions, password resets, their pages).
  'POST /v1/orgs/:orgId/invitations': 'jwt-admin',
  'GET /v1/orgs/:orgId/invitations': 'jwt-admin',
  'DELETE /v1/orgs/:orgId/invitations/:invitationId': 'jwt-admin',
  'POST /v1/invitations/preview': 'open',
  'POST /v1/invitations/accept': 'open',
  'GET /v1/auth/account': 'jwt-user',
  'PATCH /v1/auth/account': 'jwt-user',
  'GET /v1/auth/sessions': 'jwt-user',
  'DELETE /v1/auth/sessions/:sessionId': 'jwt-user',
  'POST /v1/orgs/:orgId/members/:accountId/password-reset': 'jwt-admin',
  'POST /v1/auth/password-reset/request': 'open',
  'POST /v1/auth/password-reset': 'open',
  'GET /invite': 'open',
  'POST /invite': 'open',
  'GET /reset-password': 'open',
  'POST /reset-password': 'open',
  'GET /v1/auth/sso/providers': 'open',
  'GET /auth/sso/:providerId/start': 'open',
  'GET /auth/sso/:providerId/callback': 'open',
  'POST /v1/auth/sso/token': 'open',
  // Issue 38: evaluation — project keys of the collection's sandbox (running meters queries but changes nothing).
  'POST /v1/collections/:id/golden-sets': 'key-owned',
  'GET /v1/collections/:id/golden-sets': 'key-owned',
  'POST /v1/collections/:id/golden-sets/upload': 'key-owned',
  'POST /v1/collections/:id/golden-proposals': 'key-owned',
  'GET /v1/collections/:id/golden-proposals': 'key-owned',
  'POST /v1/collections/:id/golden-proposals/:proposalId/accept': 'key-owned',
  'POST /v1/collections/:id/golden-proposals/:proposalId/reject': 'key-owned',
  'GET /v1/collections/:id/golden-sets/:setId': 'key-owned',
  'PATCH /v1/collections/:id/golden-sets/:setId': 'key-owned',
  'DELETE /v1/collections/:id/golden-sets/:setId': 'key-owned',
  'POST /v1/collections/:id/evaluations': 'key-owned',
  'GET /v1/collections/:id/evaluations': 'key-owned',
  'GET /v1/collections/:id/evaluations/compare': 'key-owned',
  'GET /v1/collections/:id/evaluations/:runId': 'key-owned',
  'GET /v1/collections/:id/evaluation-guard': 'key-owned',
  'PUT /v1/collections/:id/evaluation-guard': 'key-owned',
  'DELETE /v1/collections/:id/evaluation-guard': 'key-owned',
  // The MCP endpoint: any project key, in its own sandbox (OAuth tokens too: their scopes are checked per tool).
  'POST /mcp': 'key-or-oauth',
  'GET /mcp': 'key-or-oauth',
  'DELETE /mcp': 'key-or-oauth',
  // The dashboard's cookie session (issue 34): signing in and out read no credentials; reading it back needs one.
  'POST /v1/dashboard/session': 'open',
  'GET /v1/dashboard/session': 'jwt-user',
  'DELETE /v1/dashboard/session': 'open',
  // Issue 43: the source manifest a sync compares with.
  'GET /v1/collections/:id/manifest': 'key-owned',
  'POST /v1/collections/:id/manifest/delete': 'key-owned',
  // Issue 43: server-side sources; org admins write, members read.
  [`POST ${ORG}/sources`]: 'jwt-admin',
  [`GET ${ORG}/sources`]: 'jwt-member',
  [`GET ${ORG}/sources/:sourceId`]: 'jwt-member',
  [`PATCH ${ORG}/sources/:sourceId`]: 'jwt-admin',
  [`DELETE ${ORG}/sources/:sourceId`]: 'jwt-admin',
  [`POST ${ORG}/sources/:sourceId/runs`]: 'jwt-admin',
  [`GET ${ORG}/sources/:sourceId/runs`]: 'jwt-member',
};

/**
 * The role column (issue 33): the role a signed-in caller needs on each route, as its row's profile states it. Every
 * route must declare the same role (RouteDef.role, checked by the router for every JWT caller): `admin` for the
 * management plane's writes (drafts and previews included), `member` for reads and invoking, `account` for a user's
 * own account; routes that take no JWT declare none.
 */
function roleOf(profile: Profile): RouteRole | undefined {
  if (profile === 'jwt-admin' || profile === 'jwt-admin-or-live-key') return 'admin';
  if (profile === 'jwt-member' || profile === 'jwt-or-live-key' || profile === 'jwt-or-org-key') return 'member';
  return profile === 'jwt-user' ? 'account' : undefined;
}

const CALLERS = [
  'none',
  'malformed',
  'unknownKey',
  'revokedKey',
  'forgedJwt',
  'otherLive',
  'otherTest',
  'ownTest',
  'ownLive',
  'orgKey',
  'otherOrgKey',
  'admin',
  'member',
  'outsider',
  'anonymousPublic',
  'oauthToken',
] as const;
type Caller = (typeof CALLERS)[number];

/**
 * What a caller may get: `ok` means authenticated and authorized (any status but 401, 403 and 404); `hidden` is an
 * anonymous read of a private collection (401 or 404: nothing is shown either way).
 */
type Expect = 'ok' | 401 | 403 | 404 | 'not-401' | 'hidden';

const KEYS: readonly Caller[] = ['otherLive', 'otherTest', 'ownTest', 'ownLive'];
const JWTS: readonly Caller[] = ['admin', 'member', 'outsider', 'forgedJwt'];

function expected(profile: Profile, caller: Caller): Expect {
  if (profile === 'open') return 'not-401';
  if (profile === 'upload-token') return 401;
  // An OAuth access token opens the MCP endpoint only; everywhere else it is refused like an unknown key.
  if (caller === 'oauthToken') return profile === 'key-or-oauth' ? 'ok' : 401;
  if (caller === 'malformed' || caller === 'unknownKey' || caller === 'revokedKey' || caller === 'forgedJwt') return 401;
  if (caller === 'orgKey' || caller === 'otherOrgKey') return profile === 'jwt-or-org-key' ? (caller === 'orgKey' ? 'ok' : 404) : 401;
  const keyRoute = profile.startsWith('key') || profile === 'public-read';
  if (keyRoute) {
    if (JWTS.includes(caller)) return 401;
    if (caller === 'anonymousPublic') return profile === 'public-read' ? 'ok' : 401;
    if (caller === 'none') return profile === 'public-read' ? 'hidden' : 401; // anonymous on a private collection: 401 or 404
    if (profile === 'key-sandbox' || profile === 'key-or-oauth' || caller === 'ownLive' || (profile === 'key-project' && caller === 'ownTest')) return 'ok';
    return 404;
  }
  if (caller === 'none' || caller === 'anonymousPublic') return 401;
  const liveKeyToo = profile === 'jwt-or-live-key' || profile === 'jwt-admin-or-live-key';
  if (KEYS.includes(caller)) return liveKeyToo ? (caller === 'ownLive' ? 'ok' : 404) : 401;
  if (caller === 'outsider') return profile === 'jwt-user' ? 'ok' : 404;
  if (caller === 'member' && (profile === 'jwt-admin' || profile === 'jwt-admin-or-live-key')) return 403;
  return 'ok';
}

let t: TestServer;
let credentials: Record<Caller, string | null>;
/** Path parameters: this project's real resources (private), and a public collection's for anonymousPublic. */
let privateIds: Record<string, string>;
let publicIds: Record<string, string>;

/** Accounts of the JWT callers, to log in again after the matrix calls "log out everywhere" as them. */
const ACCOUNTS: Partial<Record<Caller, [string, string]>> = {};

async function login(email: string, password: string): Promise<{ token: string; id: string }> {
  const res = await t.request('POST', '/auth/login', { auth: null, json: { email, password } });
  return { token: res.body.token, id: res.body.user.id };
}

beforeAll(async () => {
  t = await startTestServer({ config: { workers: 1 } });
  const store = dossierContext(t.server.dossier).store;
  const other = (await t.server.dossier.auth.bootstrap('other@example.test', 'another long password'))!;
  await t.server.dossier.auth.bootstrap('member@example.test', 'member long password');
  Object.assign(ACCOUNTS, {
    admin: [t.email, t.password],
    member: ['member@example.test', 'member long password'],
    outsider: ['other@example.test', 'another long password'],
  });
  const admin = await login(t.email, t.password);
  const member = await login('member@example.test', 'member long password');
  await store.setMembership(t.orgId, member.id, 'member');
  const outsider = await login('other@example.test', 'another long password');
  const [head, , sig] = admin.token.split('.');
  const keysOf = (orgId: string, token: string) => t.request('POST', `/v1/orgs/${orgId}/api-keys`, { auth: token, json: { name: 'matrix' } });
  const revoked = await t.request('POST', `/v1/orgs/${t.orgId}/projects/${t.projectId}/api-keys`, { auth: admin.token, json: { env: 'live' } });
  await t.request('DELETE', `/v1/orgs/${t.orgId}/projects/${t.projectId}/api-keys/${revoked.body.id}`, { auth: admin.token });
  credentials = {
    none: null,
    malformed: 'not a bearer',
    unknownKey: `dsk_live_${'x'.repeat(32)}`,
    revokedKey: revoked.body.key,
    forgedJwt: `${head}.eyJzdWIiOiJ4In0.${sig}`,
    otherLive: other.liveKey,
    otherTest: other.testKey,
    ownTest: t.testKey,
    ownLive: t.liveKey,
    orgKey: (await keysOf(t.orgId, admin.token)).body.key,
    otherOrgKey: (await keysOf(other.orgId, outsider.token)).body.key,
    admin: admin.token,
    member: member.token,
    outsider: outsider.token,
    anonymousPublic: null,
    oauthToken: (await tokensFor(t, 'svc:full')).tokens.access_token,
  };
  privateIds = await fixture('private');
  publicIds = await fixture('public');
});
afterAll(async () => {
  await t?.close();
});

/** A collection with a ready document, plus the project's agent, webhook endpoint and provider key. */
async function fixture(visibility: 'private' | 'public'): Promise<Record<string, string>> {
  const collection = await t.createCollection({ name: `matrix ${visibility}`, visibility });
  const doc = await t.ingest(collection.id, 'm.md', '# Matrix\n\n## Part\n\nwords about access\n');
  const [section] = (await t.request('GET', `/v1/documents/${doc.id}/sections`)).body;
  const admin = credentials.admin!;
  const base = `/v1/orgs/${t.orgId}/projects/${t.projectId}`;
  const slug = `matrix-${visibility}`;
  await t.request('POST', `${base}/agents`, { auth: admin, json: { slug, name: 'M', systemPrompt: 'x', model: 'gpt-4o-mini', allowedCollectionIds: null } });
  const hook = await t.request('POST', `${base}/webhooks`, { auth: admin, json: { url: `https://hooks.invalid/${visibility}` } });
  const key = await t.request('POST', `/v1/projects/${t.projectId}/provider-keys`, {
    json: { provider: 'openai', key: 'sk-proj-matrix-0123456789', name: 'm' },
  });
  const random = crypto.randomUUID();
  return {
    orgId: t.orgId,
    projectId: t.projectId,
    id: collection.id,
    docId: doc.id,
    agentId: slug,
    agentSlug: slug,
    endpointId: hook.body.id,
    keyId: key.body.id,
    sessionId: random,
    imageId: random,
    contradictionId: random,
    groupId: random,
    runId: random,
    token: 'not-a-token',
    // Document, section and project routes name them by `:id` as well.
    '/v1/documents/:id': doc.id,
    '/v1/sections/:id': section.id,
    '/v1/projects/:id': t.projectId,
  };
}

/** The route's path with real ids: `:id` is the collection, the document, the section or the project by the route's prefix. */
function pathOf(route: RouteDef, ids: Record<string, string>, destructive: boolean): string {
  const idOf = (name: string): string => {
    if (destructive && name !== 'orgId' && name !== 'projectId') return crypto.randomUUID(); // an allowed DELETE must not remove the fixture
    if (name !== 'id') return ids[name] ?? crypto.randomUUID();
    const prefix = Object.keys(ids).find((p) => p.startsWith('/') && route.path.startsWith(p));
    return prefix ? ids[prefix]! : ids.id!;
  };
  return route.path.replace(/:(\w+)/g, (_, name: string) => idOf(name));
}

/** The status, and whether the path named a resource that does not exist (a random id: 404 is then fine). */
async function call(route: RouteDef, caller: Caller, allowed: boolean): Promise<{ status: number; random: boolean }> {
  const ids = caller === 'anonymousPublic' ? publicIds : privateIds;
  const path = pathOf(route, ids, allowed && route.method === 'delete');
  const random =
    /:(sessionId|imageId|contradictionId|groupId|runId|sourceId|setId|proposalId)\b|\/deliveries\/:id|\/api-keys\/:keyId|:accountId|:connectionId/.test(
      route.path,
    );
  const credential = credentials[caller];
  const headers: Record<string, string> = caller === 'malformed' ? { authorization: 'Basic abc' } : {};
  const wantsBody = route.body !== undefined && route.method !== 'get';
  const res = await fetch(`${t.url}${path}${route.path.endsWith('/wait') ? '?timeout=1' : ''}`, {
    method: route.method.toUpperCase(),
    headers: { ...headers, ...(credential ? { authorization: `Bearer ${credential}` } : {}), ...(wantsBody ? { 'content-type': 'application/json' } : {}) },
    body: wantsBody ? '{}' : undefined,
    signal: AbortSignal.timeout(10_000),
  });
  // Streams (SSE) answer 200 and stay open: the status is all this test needs.
  await res.body?.cancel();
  return { status: res.status, random: random || (allowed && route.method === 'delete') };
}

/**
 * Whether a status meets the expectation. `ok` is any status but 401 and 403 (and 404 unless the path named a
 * random id). The matrix sends `{}` as every JSON body: bodies are validated before the resource is looked up, so
 * a refused caller of a route with a body may get that 400 instead of 403/404 (with a valid body it gets 403/404,
 * as the route tests show); 401 comes before either.
 */
function isFine(want: Expect, status: number, route: { random: boolean; body: boolean }): boolean {
  if (want === 'ok') return status !== 401 && status !== 403 && (route.random || status !== 404);
  if (want === 'not-401') return status !== 401;
  if (want === 'hidden') return status === 401 || status === 404 || (route.body && status === 400);
  return status === want || (want !== 401 && route.body && status === 400);
}

describe('authorization matrix', () => {
  it('has exactly one row per route', () => {
    const declared = allRoutes({ dossier: t.server.dossier, config: t.config, publicUrl: () => t.url, limits: t.server.limits }).map(
      (r) => `${r.method.toUpperCase()} ${r.path}`,
    );
    expect(
      declared.filter((key) => !(key in ROWS)),
      'routes without a row in ROWS',
    ).toEqual([]);
    expect(
      Object.keys(ROWS).filter((key) => !declared.includes(key)),
      'rows of routes that do not exist',
    ).toEqual([]);
  });

  it('declares on every route the role its matrix row states (issue 33)', () => {
    const routes = allRoutes({ dossier: t.server.dossier, config: t.config, publicUrl: () => t.url, limits: t.server.limits });
    const wrong = routes
      .map((route) => ({ key: `${route.method.toUpperCase()} ${route.path}`, declared: route.role }))
      .filter(({ key, declared }) => declared !== roleOf(ROWS[key]!))
      .map(({ key, declared }) => `${key}: declares ${declared ?? 'no role'}, the matrix says ${roleOf(ROWS[key]!) ?? 'no role'}`);
    expect(wrong).toEqual([]);
    // The writes the outside security test found open to members (issue 33) are admin routes now.
    const admin = routes.filter((route) => route.role === 'admin').map((route) => route.operationId);
    expect(admin).toEqual(
      expect.arrayContaining([
        'previewAgent',
        'createWebhook',
        'updateWebhook',
        'deleteWebhook',
        'retryWebhookDelivery',
        'sendWebhookTestEvent',
        'createAgent',
      ]),
    );
  });

  it('refuses to mount a route that takes a JWT without a role, or an org role without :orgId in its path', () => {
    const base = { method: 'post', path: '/v1/orgs/:orgId/things', summary: 's', tag: 't', responses: {}, handle: async () => {} } as const;
    expect(() => checkRoleDeclaration({ ...base, auth: 'jwt' } as unknown as AnyRoute)).toThrow(/declares no role/);
    expect(() => checkRoleDeclaration({ ...base, auth: 'key', role: 'admin' } as unknown as AnyRoute)).toThrow(/accepts no JWT/);
    expect(() => checkRoleDeclaration({ ...base, path: '/v1/things', auth: 'jwt', role: 'admin' })).toThrow(/no :orgId/);
    expect(() => checkRoleDeclaration({ ...base, auth: 'jwt-or-key', role: 'admin' })).not.toThrow();
  });

  it("answers a member exactly 403 on every admin route, whatever the body (issue 33: a member can do no admin's action)", async () => {
    const routes = allRoutes({ dossier: t.server.dossier, config: t.config, publicUrl: () => t.url, limits: t.server.limits });
    const wrong: string[] = [];
    for (const route of routes.filter((r) => ROWS[`${r.method.toUpperCase()} ${r.path}`] && roleOf(ROWS[`${r.method.toUpperCase()} ${r.path}`]!) === 'admin')) {
      const { status } = await call(route, 'member', false);
      if (status !== 403) wrong.push(`${route.method.toUpperCase()} ${route.path} as member: ${status}, expected 403`);
    }
    expect(wrong).toEqual([]);
  });

  it('answers every caller of every route as its profile says', async () => {
    const routes = allRoutes({ dossier: t.server.dossier, config: t.config, publicUrl: () => t.url, limits: t.server.limits });
    const wrong: string[] = [];
    for (const route of routes) {
      const profile = ROWS[`${route.method.toUpperCase()} ${route.path}`]!;
      for (const caller of CALLERS) {
        const want = expected(profile, caller);
        const { status, random } = await call(route, caller, want === 'ok');
        const account = ACCOUNTS[caller];
        if (route.path === '/v1/auth/logout-all' && status === 204 && account) credentials[caller] = (await login(...account)).token;
        const fine = isFine(want, status, { random, body: route.body !== undefined || route.bodyType !== undefined });
        if (!fine) wrong.push(`${route.method.toUpperCase()} ${route.path} as ${caller}: ${status}, expected ${want}`);
      }
    }
    if (wrong.length) console.log(wrong.join('\n'));
    expect(wrong).toEqual([]);
  }, 120_000);
});
