import { DossierError } from '@dossier/core';
import { peopleSchemas as s } from '@dossier/core/internal';
import type { Context } from 'koa';
import { DEFAULT_PEOPLE_OPTIONS, type PeopleOptions } from '../people/config.ts';
import { noContent, type RouteDef, type RouteDeps, route } from './define.ts';

/**
 * People on a team (issue 42): invitations (admin), the caller's account and sessions, and password reset links.
 * Links are answered once to the admin who made them and e-mailed when the server has SMTP settings; their secrets
 * are stored only as hashes. The endpoints that take a link or a password are throttled like POST /auth/login.
 */

export const peopleOptions = (deps: RouteDeps): PeopleOptions => deps.people ?? DEFAULT_PEOPLE_OPTIONS;

/** The page a link opens: `<public URL>/invite?token=…` or `/reset-password?token=…`. */
export const linkUrl = (deps: RouteDeps, page: 'invite' | 'reset-password', token: string): string =>
  `${deps.publicUrl().replace(/\/+$/, '')}/${page}?token=${encodeURIComponent(token)}`;

/** Refuse what needs a password when the operator turned password sign-in off (single sign-on only). */
export function requirePasswordSignIn(deps: RouteDeps): void {
  if (!peopleOptions(deps).passwordSignIn) throw new DossierError('forbidden', 'Password sign-in is turned off on this server: sign in with single sign-on');
}

/** E-mail a link when asked and the server can; whether it went. */
async function mailLink(deps: RouteDeps, send: boolean, to: string, subject: string, text: string): Promise<boolean> {
  const mailer = peopleOptions(deps).mailer;
  return send && mailer ? mailer.send({ to, subject, text }) : false;
}

const userAgent = (ctx: Context) => ({ userAgent: ctx.get('user-agent') || null });
const denied = { 401: 'JWT required', 403: 'Needs the admin role in the org', 404: 'Org not found (also when the account is not a member)' };

function invitationRoutes(deps: RouteDeps): RouteDef[] {
  const invitations = deps.dossier.people.invitations;
  const base = '/v1/orgs/:orgId/invitations';
  return [
    route({
      method: 'post',
      path: base,
      operationId: 'createInvitation',
      tag: 'auth',
      auth: 'jwt',
      role: 'admin',
      body: s.inviteSchema,
      summary: 'Invite an e-mail to the org with a role (admin): the answer holds the one-time link, shown only here (also e-mailed when SMTP is set)',
      responses: {
        201: { description: 'The invitation and its link', schema: s.createdInvitation },
        400: 'Invalid e-mail or role',
        409: 'Already a member',
        ...denied,
      },
      handle: async (ctx, { caller, body, reply }) => {
        const { invitation, token, sendEmail } = await invitations.invite(caller, ctx.params.orgId, body);
        const url = linkUrl(deps, 'invite', token);
        const org = await deps.dossier.auth.listOrgs(caller).then((orgs) => orgs.find((o) => o.id === invitation.orgId)?.name ?? 'an org');
        const text = `You are invited to join ${org} on Dossier as ${invitation.role}.\n\nOpen this link to accept (it works once, until ${invitation.expiresAt}):\n${url}\n`;
        reply(201, { ...invitation, url, emailed: await mailLink(deps, sendEmail, invitation.email, `Join ${org} on Dossier`, text) });
      },
    }),
    route({
      method: 'get',
      path: base,
      operationId: 'listInvitations',
      tag: 'auth',
      auth: 'jwt',
      role: 'admin',
      summary: 'Pending invitations of the org, newest first (admin; links are never shown again)',
      responses: { 200: { description: 'The pending invitations', schema: s.invitation.array() }, ...denied },
      handle: async (ctx, { caller, reply }) => reply(200, await invitations.list(caller, ctx.params.orgId)),
    }),
    route({
      method: 'delete',
      path: `${base}/:invitationId`,
      operationId: 'revokeInvitation',
      tag: 'auth',
      auth: 'jwt',
      role: 'admin',
      summary: 'Revoke a pending invitation (admin): its link stops working',
      responses: { 204: 'Revoked', ...denied, 404: 'No pending invitation with this id in the org' },
      handle: async (ctx, { caller }) => {
        await invitations.revoke(caller, ctx.params.orgId, ctx.params.invitationId);
        noContent(ctx);
      },
    }),
    route({
      method: 'post',
      path: '/v1/invitations/preview',
      operationId: 'previewInvitation',
      tag: 'auth',
      auth: 'none',
      body: s.invitationTokenQuery,
      summary: 'What an invitation link is for (org, e-mail, role) before accepting it',
      responses: {
        200: { description: 'The invitation', schema: s.invitationPreview },
        400: 'Malformed token',
        404: 'Used, revoked, expired or unknown link',
        429: 'Too many failed attempts from the address',
      },
      handle: async (ctx, { body, reply }) => reply(200, await deps.limits.linkAttempt(ctx.ip, () => invitations.preview(body.token))),
    }),
    route({
      method: 'post',
      path: '/v1/invitations/accept',
      operationId: 'acceptInvitation',
      tag: 'auth',
      auth: 'none',
      body: s.acceptInvitationSchema,
      summary: "Accept an invitation with a new password (or the existing account's): the person is a member and signed in",
      responses: {
        200: { description: 'A JWT, the account, and the org joined', schema: s.acceptedInvitation },
        400: 'Weak password',
        401: 'Wrong password of the existing account',
        403: 'Password sign-in is off (accept by signing in with single sign-on)',
        404: 'Used, revoked, expired or unknown link',
        429: 'Too many failed attempts from the address',
      },
      handle: async (ctx, { body, reply }) => {
        requirePasswordSignIn(deps);
        reply(200, await deps.limits.linkAttempt(ctx.ip, () => invitations.accept(body, userAgent(ctx))));
      },
    }),
  ];
}

function accountRoutes(deps: RouteDeps): RouteDef[] {
  const accounts = deps.dossier.people.accounts;
  return [
    route({
      method: 'get',
      path: '/v1/auth/account',
      operationId: 'getAccount',
      tag: 'auth',
      auth: 'jwt',
      role: 'account',
      summary: "The caller's account",
      responses: { 200: { description: 'The account', schema: s.account }, 401: 'JWT required' },
      handle: async (_ctx, { caller, reply }) => reply(200, await accounts.me(caller)),
    }),
    route({
      method: 'patch',
      path: '/v1/auth/account',
      operationId: 'changeEmail',
      tag: 'auth',
      auth: 'jwt',
      role: 'account',
      body: s.changeEmailSchema,
      summary: "Change the caller's e-mail (the current password is required)",
      responses: {
        200: { description: 'The account', schema: s.account },
        400: 'Invalid e-mail',
        401: 'JWT required, or the current password is wrong',
        409: 'Another account has this e-mail',
        429: 'Too many wrong passwords',
      },
      handle: async (ctx, { caller: claims, body, reply }) => {
        reply(200, await deps.limits.login(ctx.ip, claims.email, () => accounts.changeEmail(claims, body)));
      },
    }),
    route({
      method: 'get',
      path: '/v1/auth/sessions',
      operationId: 'listSessions',
      tag: 'auth',
      auth: 'jwt',
      role: 'account',
      summary: "The caller's signed-in sessions, newest first (current marks this request's)",
      responses: { 200: { description: 'The sessions', schema: s.session.array() }, 401: 'JWT required' },
      handle: async (_ctx, { caller, reply }) => reply(200, await deps.dossier.people.accounts.listSessions(caller)),
    }),
    route({
      method: 'delete',
      path: '/v1/auth/sessions/:sessionId',
      operationId: 'endSession',
      tag: 'auth',
      auth: 'jwt',
      role: 'account',
      summary: "End one of the caller's sessions: its tokens stop working at once",
      responses: { 204: 'Ended', 401: 'JWT required', 404: 'No live session of the caller with this id' },
      handle: async (ctx, { caller }) => {
        await accounts.endSession(caller, ctx.params.sessionId);
        noContent(ctx);
      },
    }),
  ];
}

function resetRoutes(deps: RouteDeps): RouteDef[] {
  const accounts = deps.dossier.people.accounts;
  const text = (url: string, expiresAt: string) =>
    `A password reset was asked for your Dossier account.\n\nOpen this link to choose a new password (it works once, until ${expiresAt}):\n${url}\n\nIf you did not ask for it, ignore this message.\n`;
  return [
    route({
      method: 'post',
      path: '/v1/orgs/:orgId/members/:accountId/password-reset',
      operationId: 'issuePasswordReset',
      tag: 'auth',
      auth: 'jwt',
      role: 'admin',
      body: s.issueResetSchema,
      summary: "Issue a one-time password reset link for a member (admin of every one of the member's orgs): shown only here, also e-mailed when SMTP is set",
      responses: {
        201: { description: 'The link', schema: s.resetLink },
        ...denied,
        403: 'Needs the admin role in the org and in every other org of the member',
      },
      handle: async (ctx, { caller, body, reply }) => {
        const reset = await accounts.adminReset(caller, ctx.params.orgId, ctx.params.accountId);
        const url = linkUrl(deps, 'reset-password', reset.token);
        const emailed = await mailLink(deps, body.sendEmail, reset.email, 'Reset your Dossier password', text(url, reset.expiresAt));
        reply(201, { url, expiresAt: reset.expiresAt, emailed });
      },
    }),
    route({
      method: 'post',
      path: '/v1/auth/password-reset/request',
      operationId: 'requestPasswordReset',
      tag: 'auth',
      auth: 'none',
      body: s.requestResetSchema,
      summary: 'Ask for a reset link by e-mail (needs SMTP settings): the same answer whether or not the e-mail has an account',
      responses: {
        202: { description: 'Accepted', schema: s.resetRequested },
        400: 'Malformed body',
        403: 'Password sign-in is off',
        429: 'Too many requests for the e-mail or from the address',
      },
      handle: async (ctx, { body, reply }) => {
        requirePasswordSignIn(deps);
        await deps.limits.mailRequest(ctx.ip, body.email);
        const reset = peopleOptions(deps).mailer ? await accounts.requestReset(body) : null;
        if (reset) await mailLink(deps, true, reset.email, 'Reset your Dossier password', text(linkUrl(deps, 'reset-password', reset.token), reset.expiresAt));
        reply(202, {
          message: 'If this e-mail has an account and the server can send mail, a reset link is on its way. Otherwise ask an admin of your org for one.',
        });
      },
    }),
    route({
      method: 'post',
      path: '/v1/auth/password-reset',
      operationId: 'completePasswordReset',
      tag: 'auth',
      auth: 'none',
      body: s.completeResetSchema,
      summary: 'Set a new password with a reset link (once); every session and token of the account ends',
      responses: {
        204: 'Changed: sign in with the new password',
        400: 'Weak password',
        403: 'Password sign-in is off',
        404: 'Used, expired or unknown link',
        429: 'Too many failed attempts from the address',
      },
      handle: async (ctx, { body }) => {
        requirePasswordSignIn(deps);
        await deps.limits.linkAttempt(ctx.ip, () => accounts.completeReset(body));
        noContent(ctx);
      },
    }),
  ];
}

/** Every JSON route of people on a team (the pages are in people-pages.ts, single sign-on in sso.ts). */
export function peopleRoutes(deps: RouteDeps): RouteDef[] {
  return [...invitationRoutes(deps), ...accountRoutes(deps), ...resetRoutes(deps)];
}
