import { responses, schemas } from '@dossier/core';
import type { Context } from 'koa';
import { noContent, type RouteDef, type RouteDeps, route } from './define.ts';

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
  return [
    route({
      method: 'get',
      path: project,
      operationId: 'listProjectApiKeys',
      tag: 'api-keys',
      auth: 'jwt',
      role: 'admin',
      summary: "The project's API keys, revoked ones too, newest first (never the keys themselves)",
      responses: { 200: { description: "The project's keys", schema: responses.apiKey.array() }, ...denied },
      handle: async (ctx, { caller, reply }) => reply(200, await keys.listProjectKeys(caller, path(ctx))),
    }),
    route({
      method: 'post',
      path: project,
      operationId: 'createProjectApiKey',
      tag: 'api-keys',
      auth: 'jwt',
      role: 'admin',
      body: schemas.createProjectKeySchema,
      summary: 'Create a live or test key; the key is in this response only',
      responses: { 201: { description: 'The new key, with the key itself', schema: responses.createdApiKey }, 400: 'Invalid env or name', ...denied },
      handle: async (ctx, { caller, body, reply }) => reply(201, await keys.createProjectKey(caller, path(ctx), body)),
    }),
    route({
      method: 'post',
      path: `${project}/:keyId/rotate`,
      operationId: 'rotateProjectApiKey',
      tag: 'api-keys',
      auth: 'jwt',
      role: 'admin',
      summary: 'Replace a key: a new key for the same sandbox and name (in this response only); the old one is revoked at once',
      responses: { 201: { description: 'The replacement key, with the key itself', schema: responses.createdApiKey }, ...denied },
      handle: async (ctx, { caller, reply }) => reply(201, await keys.rotateProjectKey(caller, path(ctx), ctx.params.keyId)),
    }),
    route({
      method: 'delete',
      path: `${project}/:keyId`,
      operationId: 'revokeProjectApiKey',
      tag: 'api-keys',
      auth: 'jwt',
      role: 'admin',
      summary: 'Revoke a key: its requests get 401 from now on and event streams opened with it close',
      responses: { 204: 'Revoked', ...denied },
      handle: async (ctx, { caller }) => {
        await keys.revokeProjectKey(caller, path(ctx), ctx.params.keyId);
        noContent(ctx);
      },
    }),
    route({
      method: 'get',
      path: org,
      operationId: 'listOrgApiKeys',
      tag: 'api-keys',
      auth: 'jwt',
      role: 'admin',
      summary: "The org's keys (they invoke the org's hosted agents), newest first",
      responses: { 200: { description: "The org's keys", schema: responses.apiKey.array() }, ...denied },
      handle: async (ctx, { caller, reply }) => reply(200, await keys.listOrgKeys(caller, ctx.params.orgId)),
    }),
    route({
      method: 'post',
      path: org,
      operationId: 'createOrgApiKey',
      tag: 'api-keys',
      auth: 'jwt',
      role: 'admin',
      body: schemas.createOrgKeySchema,
      summary: 'Create an org key (dsk_org_…); the key is in this response only',
      responses: { 201: { description: 'The new key, with the key itself', schema: responses.createdApiKey }, 400: 'Invalid name', ...denied },
      handle: async (ctx, { caller, body, reply }) => reply(201, await keys.createOrgKey(caller, ctx.params.orgId, body)),
    }),
    route({
      method: 'delete',
      path: `${org}/:keyId`,
      operationId: 'revokeOrgApiKey',
      tag: 'api-keys',
      auth: 'jwt',
      role: 'admin',
      summary: 'Revoke an org key',
      responses: { 204: 'Revoked', ...denied },
      handle: async (ctx, { caller }) => {
        await keys.revokeOrgKey(caller, ctx.params.orgId, ctx.params.keyId);
        noContent(ctx);
      },
    }),
  ];
}
