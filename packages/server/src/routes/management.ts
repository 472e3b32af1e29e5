import { schemas } from '@dossier/core';
import type { Context } from 'koa';
import { requireSession } from '../http/auth.ts';
import { noContent, type RouteDef, type RouteDeps, send } from './define.ts';

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
    {
      method: 'post', path: '/v1/orgs', idempotent: true, tag: 'auth', auth: 'jwt', body: schemas.nameSchema, summary: 'Create an org; the caller becomes its admin',
      responses: { 201: 'Org', 400: 'Invalid name', 401: 'JWT required' },
      handle: async (ctx, { body }) => send(ctx, 201, await orgs.createOrg(requireSession(ctx), body)),
    },
    {
      method: 'patch', path: org, tag: 'auth', auth: 'jwt', body: schemas.nameSchema, summary: 'Rename an org (admin)',
      responses: { 200: 'Org', 400: 'Invalid name', ...denied },
      handle: async (ctx, { body }) => send(ctx, 200, await orgs.renameOrg(requireSession(ctx), ctx.params.orgId, body)),
    },
    {
      method: 'delete', path: org, tag: 'auth', auth: 'jwt', summary: 'Delete an org with its projects, members and keys (admin; 409 while a project has collections)',
      responses: { 204: 'Deleted', 409: 'A project still has collections', ...denied },
      handle: async (ctx) => {
        await orgs.deleteOrg(requireSession(ctx), ctx.params.orgId);
        noContent(ctx);
      },
    },
    {
      method: 'post', path: `${org}/projects`, tag: 'auth', auth: 'jwt', body: schemas.nameSchema,
      summary: 'Create a project (admin) with its live and test API keys, which are in this response only',
      responses: { 201: '{project: Project, liveKey, testKey}', 400: 'Invalid name', ...denied },
      handle: async (ctx, { body }) => send(ctx, 201, await orgs.createProject(requireSession(ctx), ctx.params.orgId, body)),
    },
    {
      method: 'patch', path: project, tag: 'auth', auth: 'jwt', body: schemas.nameSchema, summary: 'Rename a project (admin)',
      responses: { 200: 'Project', 400: 'Invalid name', ...denied },
      handle: async (ctx, { body }) => send(ctx, 200, await orgs.renameProject(requireSession(ctx), projectPath(ctx), body)),
    },
    {
      method: 'delete', path: project, tag: 'auth', auth: 'jwt', summary: 'Delete a project with its keys (admin; 409 while it has collections)',
      responses: { 204: 'Deleted', 409: 'The project still has collections', ...denied },
      handle: async (ctx) => {
        await orgs.deleteProject(requireSession(ctx), projectPath(ctx));
        noContent(ctx);
      },
    },
    {
      method: 'get', path: `${org}/members`, tag: 'auth', auth: 'jwt', summary: 'Members of the org with their roles (any member)',
      responses: { 200: 'array of {accountId, email, role}', ...denied },
      handle: async (ctx) => send(ctx, 200, await orgs.listMembers(requireSession(ctx), ctx.params.orgId)),
    },
    {
      method: 'put', path: `${org}/members`, tag: 'auth', auth: 'jwt', body: schemas.memberSchema,
      summary: "Add an existing account to the org with a role, or change its role (admin; the last admin can't be demoted)",
      responses: { 200: '{accountId, email, role}', 400: 'Invalid email or role', 409: 'The org would have no admin', ...denied },
      handle: async (ctx, { body }) => send(ctx, 200, await orgs.putMember(requireSession(ctx), ctx.params.orgId, body)),
    },
    {
      method: 'delete', path: `${org}/members/:accountId`, tag: 'auth', auth: 'jwt', summary: "Remove a member (admin; the last admin can't be removed)",
      responses: { 204: 'Removed', 409: 'The org would have no admin', ...denied },
      handle: async (ctx) => {
        await orgs.removeMember(requireSession(ctx), ctx.params.orgId, ctx.params.accountId);
        noContent(ctx);
      },
    },
    {
      method: 'post', path: '/v1/auth/password', tag: 'auth', auth: 'jwt', body: schemas.changePasswordSchema,
      summary: "Change the caller's password (12 characters or more); every token issued before stops working",
      responses: { 204: 'Changed: log in again', 400: 'Invalid input', 401: 'JWT required, or the current password is wrong' },
      handle: async (ctx, { body }) => {
        await orgs.changePassword(requireSession(ctx), body);
        noContent(ctx);
      },
    },
    {
      method: 'post', path: '/v1/auth/logout-all', tag: 'auth', auth: 'jwt', summary: "Revoke every token of the caller's account (log out everywhere)",
      responses: { 204: 'Revoked', 401: 'JWT required' },
      handle: async (ctx) => {
        await orgs.revokeTokens(requireSession(ctx));
        noContent(ctx);
      },
    },
  ];
}
