import { isDossierError } from '@dossier/core';
import type { Context } from 'koa';
import { z } from 'zod';
import { readForm } from '../http/body.ts';
import { sendPage } from '../pages/html.ts';
import { invitationPage, messagePage, resetPage } from '../pages/people.ts';
import type { RouteDef, RouteDeps } from './define.ts';
import { peopleOptions } from './people.ts';

/**
 * The pages the links open (issue 42): `/invite?token=…` accepts an invitation, `/reset-password?token=…` sets a new
 * password. Plain forms like the consent page (no script, no cookie); throttled like the JSON endpoints.
 */

const STATUS: Record<string, number> = { invalid_input: 400, unauthorized: 401, forbidden: 403, not_found: 404, rate_limited: 429 };

/** A refusal to show on the page (its status and message), or null for an unexpected error. */
const refusal = (err: unknown): { status: number; message: string } | null =>
  isDossierError(err) && STATUS[err.code] ? { status: STATUS[err.code]!, message: err.message } : null;

const providersOf = (deps: RouteDeps) => peopleOptions(deps).ssoProviders.map((p) => ({ id: p.id, name: p.name }));
const tokenQuery = z.object({ token: z.string().max(200).optional().describe('The secret of the link') });
const UNUSABLE_INVITE = 'This invitation link is not valid: it was used, revoked, or has expired. Ask an admin for a new one.';

/** The invitation page for a token, or the page saying the link cannot be used. */
async function showInvitation(deps: RouteDeps, ctx: Context, token: string, failure?: { status: number; message: string }): Promise<void> {
  try {
    const preview = await deps.limits.linkAttempt(ctx.ip, () => deps.dossier.people.invitations.preview(token));
    const view = {
      token,
      ...preview,
      passwordSignIn: peopleOptions(deps).passwordSignIn,
      providers: providersOf(deps),
      ssoQuery: deps.dashboard ? 'then=dashboard' : '',
      error: failure?.message,
    };
    sendPage(ctx, failure?.status ?? 200, invitationPage(view));
  } catch (err) {
    const refused = refusal(err);
    if (!refused) throw err;
    sendPage(ctx, refused.status, messagePage('Invitation', refused.status === 404 ? UNUSABLE_INVITE : refused.message, 'error'));
  }
}

async function acceptFromForm(deps: RouteDeps, ctx: Context): Promise<void> {
  const form = await readForm(ctx);
  const token = form.token ?? '';
  try {
    if (!peopleOptions(deps).passwordSignIn) return void (await showInvitation(deps, ctx, token));
    const accepted = await deps.limits.linkAttempt(ctx.ip, () =>
      deps.dossier.people.invitations.accept({ token, password: form.password ?? '' }, { userAgent: ctx.get('user-agent') || null }),
    );
    sendPage(
      ctx,
      200,
      messagePage(
        'Welcome',
        `You are a member now, signed in as ${accepted.user.email}. Sign in with your e-mail and password in the dashboard, the CLI (dossier login), the API, or an MCP client.`,
        'status',
        { href: '/', label: 'Open the dashboard' },
      ),
    );
  } catch (err) {
    const refused = refusal(err);
    if (!refused) throw err;
    await showInvitation(deps, ctx, token, refused);
  }
}

async function resetFromForm(deps: RouteDeps, ctx: Context): Promise<void> {
  const form = await readForm(ctx);
  const token = form.token ?? '';
  try {
    if (!peopleOptions(deps).passwordSignIn)
      return sendPage(ctx, 403, messagePage('Password', 'Password sign-in is turned off on this server: sign in with single sign-on.', 'error'));
    await deps.limits.linkAttempt(ctx.ip, () => deps.dossier.people.accounts.completeReset({ token, newPassword: form.newPassword ?? '' }));
    sendPage(
      ctx,
      200,
      messagePage('Password changed', 'Your password is changed and every session of your account has ended. Sign in with the new password.', 'status', {
        href: '/',
        label: 'Open the dashboard',
      }),
    );
  } catch (err) {
    const refused = refusal(err);
    if (!refused) throw err;
    if (refused.status === 400) return sendPage(ctx, 400, resetPage(token, refused.message));
    sendPage(ctx, refused.status, messagePage('Password reset', refused.message, 'error'));
  }
}

export function peoplePageRoutes(deps: RouteDeps): RouteDef[] {
  const field = (about: string) => z.string().optional().describe(about);
  return [
    {
      method: 'get',
      path: '/invite',
      operationId: 'invitationPage',
      tag: 'auth',
      auth: 'none',
      produces: 'text/html',
      query: tokenQuery,
      summary: 'The page an invitation link opens: choose a password (or sign in with SSO) to join the org',
      responses: { 200: 'The invitation page', 404: 'The link was used, revoked or has expired', 429: 'Too many failed attempts from the address' },
      handle: (ctx) => showInvitation(deps, ctx, typeof ctx.query.token === 'string' ? ctx.query.token : ''),
    },
    {
      method: 'post',
      path: '/invite',
      operationId: 'acceptInvitationPage',
      tag: 'auth',
      auth: 'none',
      produces: 'text/html',
      rawBody: {
        type: 'application/x-www-form-urlencoded',
        schema: z.object({ token: field('The link secret'), password: field("A new password, or the existing account's") }),
      },
      summary: 'Accept an invitation from its page',
      responses: {
        200: 'Welcome page',
        400: 'The page again (weak password)',
        401: 'The page again (wrong password)',
        404: 'The link cannot be used',
        429: 'Too many failed attempts',
      },
      handle: (ctx) => acceptFromForm(deps, ctx),
    },
    {
      method: 'get',
      path: '/reset-password',
      operationId: 'resetPasswordPage',
      tag: 'auth',
      auth: 'none',
      produces: 'text/html',
      query: tokenQuery,
      summary: 'The page a password reset link opens: choose a new password',
      responses: { 200: 'The form' },
      handle: async (ctx) => sendPage(ctx, 200, resetPage(typeof ctx.query.token === 'string' ? ctx.query.token : '')),
    },
    {
      method: 'post',
      path: '/reset-password',
      operationId: 'resetPasswordFromPage',
      tag: 'auth',
      auth: 'none',
      produces: 'text/html',
      rawBody: { type: 'application/x-www-form-urlencoded', schema: z.object({ token: field('The link secret'), newPassword: field('The new password') }) },
      summary: 'Set a new password from the reset page',
      responses: {
        200: 'Done',
        400: 'The form again (weak password)',
        403: 'Password sign-in is off',
        404: 'The link was used or has expired',
        429: 'Too many failed attempts',
      },
      handle: (ctx) => resetFromForm(deps, ctx),
    },
  ];
}
