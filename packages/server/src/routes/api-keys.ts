import { schemas } from '@dossier/core';
import type { Context } from 'koa';
import { requireSession } from '../http/auth.ts';
import { noContent, type RouteDef, type RouteDeps, send } from './define.ts';

/**
 * API key management (issue 9; the spec leaves it "not shown"): admins of the org list, create, rotate and revoke a
 * project's live and test keys, and the org's own keys (`dsk_org_…`, for invoking hosted agents). A new key is in
 * the creating response only; listings show prefix, last four, created and last-used times.
 */
export function apiKeyRoutes({ dossier }: RouteDeps): RouteDef[] {
  const keys = dossier.keys;
  const project = '/v1/orgs/:orgId/projects/:projectId/api-keys';
  const org = '/v1/orgs/:orgId/api-keys';
  const path = (ctx: Context) => ({ orgId: ctx.params.orgId, projectId: ctx.params.projectId });
  const denied = { 401: 'JWT required', 403: 'Needs the admin role in the org', 404: 'Org, project or key not found (also when the account is not a member)' };
  const view = '{id, env (live|test|org), name, prefix, lastFour, createdAt, lastUsedAt, revokedAt}';
  return [
    {
      method: 'get', path: project, tag: 'api-keys', auth: 'jwt', summary: "The project's API keys, revoked ones too, newest first (never the keys themselves)",
      responses: { 200: `array of ${view}`, ...denied },
      handle: async (ctx) => send(ctx, 200, await keys.listProjectKeys(requireSession(ctx), path(ctx))),
    },
    {
      method: 'post', path: project, tag: 'api-keys', auth: 'jwt', body: schemas.createProjectKeySchema,
      summary: 'Create a live or test key; the key is in this response only',
      responses: { 201: `${view} with key`, 400: 'Invalid env or name', ...denied },
      handle: async (ctx, { body }) => send(ctx, 201, await keys.createProjectKey(requireSession(ctx), path(ctx), body)),
    },
    {
      method: 'post', path: `${project}/:keyId/rotate`, tag: 'api-keys', auth: 'jwt',
      summary: 'Replace a key: a new key for the same sandbox and name (in this response only); the old one is revoked at once',
      responses: { 201: `${view} with key`, ...denied },
      handle: async (ctx) => send(ctx, 201, await keys.rotateProjectKey(requireSession(ctx), path(ctx), ctx.params.keyId)),
    },
    {
      method: 'delete', path: `${project}/:keyId`, tag: 'api-keys', auth: 'jwt',
      summary: 'Revoke a key: its requests get 401 from now on and event streams opened with it close',
      responses: { 204: 'Revoked', ...denied },
      handle: async (ctx) => {
        await keys.revokeProjectKey(requireSession(ctx), path(ctx), ctx.params.keyId);
        noContent(ctx);
      },
    },
    {
      method: 'get', path: org, tag: 'api-keys', auth: 'jwt', summary: "The org's keys (they invoke the org's hosted agents), newest first",
      responses: { 200: `array of ${view}`, ...denied },
      handle: async (ctx) => send(ctx, 200, await keys.listOrgKeys(requireSession(ctx), ctx.params.orgId)),
    },
    {
      method: 'post', path: org, tag: 'api-keys', auth: 'jwt', body: schemas.createOrgKeySchema,
      summary: 'Create an org key (dsk_org_…); the key is in this response only',
      responses: { 201: `${view} with key`, 400: 'Invalid name', ...denied },
      handle: async (ctx, { body }) => send(ctx, 201, await keys.createOrgKey(requireSession(ctx), ctx.params.orgId, body)),
    },
    {
      method: 'delete', path: `${org}/:keyId`, tag: 'api-keys', auth: 'jwt', summary: 'Revoke an org key',
      responses: { 204: 'Revoked', ...denied },
      handle: async (ctx) => {
        await keys.revokeOrgKey(requireSession(ctx), ctx.params.orgId, ctx.params.keyId);
        noContent(ctx);
      },
    },
  ];
}
