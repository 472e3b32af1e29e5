import { responses, schemas } from '@dossier/core';
import type { Context } from 'koa';
import { noContent, type RouteDef, type RouteDeps, route } from './define.ts';

/**
 * The management plane beyond the spec's two listings (issue 9; the spec leaves these "not shown"): orgs and
 * projects created, renamed and deleted by org admins (deleting refuses with 409 while collections exist), members
 * with roles, password change and "log out everywhere". All need a JWT.
 */
export function managementRoutes({ dossier }: RouteDeps): RouteDef[] {
  const orgs = dossier.orgs;
  const org = '/v1/orgs/:orgId';
  const project = '/v1/orgs/:orgId/projects/:projectId';
  const projectPath = (ctx: Context) => ({ orgId: ctx.params.orgId, projectId: ctx.params.projectId });
  const denied = { 401: 'JWT required', 403: 'Needs the admin role in the org', 404: 'Org or project not found (also when the account is not a member)' };
  return [
    route({
      method: 'post',
      path: '/v1/orgs',
      operationId: 'createOrg',
      idempotent: true,
      tag: 'auth',
      auth: 'jwt',
      role: 'account',
      body: schemas.nameSchema,
      summary: 'Create an org; the caller becomes its admin',
      responses: { 201: { description: 'The new org', schema: responses.org }, 400: 'Invalid name', 401: 'JWT required' },
      handle: async (_ctx, { caller, body, reply }) => reply(201, await orgs.createOrg(caller, body)),
    }),
    route({
      method: 'patch',
      path: org,
      operationId: 'renameOrg',
      tag: 'auth',
      auth: 'jwt',
      role: 'admin',
      body: schemas.nameSchema,
      summary: 'Rename an org (admin)',
      responses: { 200: { description: 'The org', schema: responses.org }, 400: 'Invalid name', ...denied },
      handle: async (ctx, { caller, body, reply }) => reply(200, await orgs.renameOrg(caller, ctx.params.orgId, body)),
    }),
    route({
      method: 'delete',
      path: org,
      operationId: 'deleteOrg',
      tag: 'auth',
      auth: 'jwt',
      role: 'admin',
      summary: 'Delete an org with its projects, members and keys (admin; 409 while a project has collections)',
      responses: { 204: 'Deleted', 409: 'A project still has collections', ...denied },
      handle: async (ctx, { caller }) => {
        await orgs.deleteOrg(caller, ctx.params.orgId);
        noContent(ctx);
      },
    }),
    route({
      method: 'post',
      path: `${org}/projects`,
      operationId: 'createProject',
      tag: 'auth',
      auth: 'jwt',
      role: 'admin',
      body: schemas.nameSchema,
      summary: 'Create a project (admin) with its live and test API keys, which are in this response only',
      responses: { 201: { description: 'The project and its two keys (shown only here)', schema: responses.createdProject }, 400: 'Invalid name', ...denied },
      handle: async (ctx, { caller, body, reply }) => reply(201, await orgs.createProject(caller, ctx.params.orgId, body)),
    }),
    route({
      method: 'patch',
      path: project,
      operationId: 'renameProject',
      tag: 'auth',
      auth: 'jwt',
      role: 'admin',
      body: schemas.nameSchema,
      summary: 'Rename a project (admin)',
      responses: { 200: { description: 'The project', schema: responses.project }, 400: 'Invalid name', ...denied },
      handle: async (ctx, { caller, body, reply }) => reply(200, await orgs.renameProject(caller, projectPath(ctx), body)),
    }),
    route({
      method: 'delete',
      path: project,
      operationId: 'deleteProject',
      tag: 'auth',
      auth: 'jwt',
      role: 'admin',
      summary: 'Delete a project with its keys (admin; 409 while it has collections)',
      responses: { 204: 'Deleted', 409: 'The project still has collections', ...denied },
      handle: async (ctx, { caller }) => {
        await orgs.deleteProject(caller, projectPath(ctx));
        noContent(ctx);
      },
    }),
    route({
      method: 'get',
      path: `${org}/members`,
      operationId: 'listMembers',
      tag: 'auth',
      auth: 'jwt',
      role: 'member',
      summary: 'Members of the org with their roles (any member)',
      responses: { 200: { description: 'The members', schema: responses.orgMember.array() }, ...denied },
      handle: async (ctx, { caller, reply }) => reply(200, await orgs.listMembers(caller, ctx.params.orgId)),
    }),
    route({
      method: 'put',
      path: `${org}/members`,
      operationId: 'putMember',
      tag: 'auth',
      auth: 'jwt',
      role: 'admin',
      body: schemas.memberSchema,
      summary: "Add an existing account to the org with a role, or change its role (admin; the last admin can't be demoted)",
      responses: {
        200: { description: 'The member', schema: responses.orgMember },
        400: 'Invalid email or role',
        409: 'The org would have no admin',
        ...denied,
      },
      handle: async (ctx, { caller, body, reply }) => reply(200, await orgs.putMember(caller, ctx.params.orgId, body)),
    }),
    route({
      method: 'delete',
      path: `${org}/members/:accountId`,
      operationId: 'removeMember',
      tag: 'auth',
      auth: 'jwt',
      role: 'admin',
      summary: "Remove a member (admin; the last admin can't be removed)",
      responses: { 204: 'Removed', 409: 'The org would have no admin', ...denied },
      handle: async (ctx, { caller }) => {
        await orgs.removeMember(caller, ctx.params.orgId, ctx.params.accountId);
        noContent(ctx);
      },
    }),
    route({
      method: 'post',
      path: '/v1/auth/password',
      operationId: 'changePassword',
      tag: 'auth',
      auth: 'jwt',
      role: 'account',
      body: schemas.changePasswordSchema,
      summary: "Change the caller's password (12 characters or more); every token issued before stops working",
      responses: { 204: 'Changed: log in again', 400: 'Invalid input', 401: 'JWT required, or the current password is wrong' },
      handle: async (ctx, { caller, body }) => {
        await orgs.changePassword(caller, body);
        noContent(ctx);
      },
    }),
    route({
      method: 'post',
      path: '/v1/auth/logout-all',
      operationId: 'logoutEverywhere',
      tag: 'auth',
      auth: 'jwt',
      role: 'account',
      summary: "Revoke every token of the caller's account (log out everywhere)",
      responses: { 204: 'Revoked', 401: 'JWT required' },
      handle: async (ctx, { caller }) => {
        await orgs.revokeTokens(caller);
        noContent(ctx);
      },
    }),
  ];
}
