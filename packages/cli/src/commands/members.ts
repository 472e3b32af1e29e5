import type { InvitationView, OrgMember } from '@dossier/core';
import type { Command, Context } from '../command.ts';
import { CliError, usageError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { shortDate } from '../format.ts';
import { sessionCall } from '../session.ts';
import { arg, dispatch } from '../subcommand.ts';

/**
 * `dossier members invite|list|revoke|remove` (issue 42): people of an org through the management API with the saved
 * session of an org admin. An invitation's link is printed once, to pass on (or e-mailed when the server has SMTP).
 */

const orgId = (ctx: Context): string => {
  const org = typeof ctx.values.org === 'string' ? ctx.values.org : ctx.env.SERVICE_ORG_ID;
  if (!org) throw usageError('no org id', 'pass --org <id> or set SERVICE_ORG_ID');
  return org;
};

const notFound = { notFoundHint: 'check --org, and `dossier members list`' };

type CreatedInvitation = InvitationView & { url: string; emailed: boolean };

async function invite(ctx: Context) {
  const email = arg(ctx, 1, 'the e-mail to invite', 'dossier members invite <email> [--role member|admin]');
  const role = typeof ctx.values.role === 'string' ? ctx.values.role : 'member';
  if (role !== 'member' && role !== 'admin') throw usageError(`unknown role '${role}'`, 'use --role member or --role admin');
  const json = { email, role, sendEmail: !ctx.values['no-email'] };
  const created = await sessionCall<CreatedInvitation>(ctx, 'POST', `/orgs/${orgId(ctx)}/invitations`, { json, ...notFound });
  if (ctx.out.json) return ctx.out.value(created);
  ctx.out.info(`invited ${created.email} as ${created.role} (until ${shortDate(created.expiresAt)})${created.emailed ? '; the link was e-mailed' : ''}`);
  ctx.out.info('the link works once and is shown only now; pass it on:');
  ctx.out.line(created.url);
}

async function list(ctx: Context) {
  const [members, invitations] = await Promise.all([
    sessionCall<OrgMember[]>(ctx, 'GET', `/orgs/${orgId(ctx)}/members`, notFound),
    ctx.values.members ? Promise.resolve([]) : sessionCall<InvitationView[]>(ctx, 'GET', `/orgs/${orgId(ctx)}/invitations`, notFound),
  ]);
  if (ctx.out.json) return ctx.out.value({ members, invitations });
  ctx.out.table(
    ['ACCOUNT', 'EMAIL', 'ROLE'],
    members.map((m) => [m.accountId, m.email, m.role]),
  );
  if (invitations.length === 0) return ctx.out.info('no pending invitations');
  ctx.out.line('');
  ctx.out.table(
    ['INVITATION', 'EMAIL', 'ROLE', 'INVITED', 'EXPIRES'],
    invitations.map((i) => [i.id, i.email, i.role, shortDate(i.createdAt), shortDate(i.expiresAt)]),
  );
}

async function revoke(ctx: Context) {
  const id = arg(ctx, 1, 'the invitation id', 'dossier members revoke <invitation-id>');
  await sessionCall(ctx, 'DELETE', `/orgs/${orgId(ctx)}/invitations/${id}`, notFound);
  if (ctx.out.json) ctx.out.value({ id, revoked: true });
  else ctx.out.info(`revoked invitation ${id}: its link stops working now`);
}

/** The account id of a member named by e-mail (or the id itself). */
async function memberId(ctx: Context, who: string): Promise<string> {
  if (!who.includes('@')) return who;
  const members = await sessionCall<OrgMember[]>(ctx, 'GET', `/orgs/${orgId(ctx)}/members`, notFound);
  const found = members.find((m) => m.email.toLowerCase() === who.toLowerCase());
  if (!found) throw new CliError(`${who} is not a member of this org`, EXIT.notFound, 'see `dossier members list`');
  return found.accountId;
}

async function remove(ctx: Context) {
  const who = arg(ctx, 1, 'the member (e-mail or account id)', 'dossier members remove <email|account-id>');
  const id = await memberId(ctx, who);
  await sessionCall(ctx, 'DELETE', `/orgs/${orgId(ctx)}/members/${id}`, notFound);
  if (ctx.out.json) ctx.out.value({ accountId: id, removed: true });
  else ctx.out.info(`removed ${who}: their access to this org ends now`);
}

export const membersCommand: Command = {
  name: 'members',
  summary: 'People of an org: invite by e-mail, list members and invitations, revoke an invitation, remove a member',
  usage: [
    'members list [--members]',
    'members invite <email> [--role member|admin] [--no-email]',
    'members revoke <invitation-id>',
    'members remove <email|account-id>',
  ],
  description:
    'Needs a session of an org admin (`dossier login`) and --org (or SERVICE_ORG_ID). An invitation prints a one-time\n' +
    'link, shown only then: pass it on (the server also e-mails it when it has SMTP settings). The invitee opens it and\n' +
    'chooses a password (or signs in with single sign-on). Removing a member ends their access to the org at once.',
  subcommands: [
    ['list', 'members with their roles, and pending invitations'],
    ['invite <email>', 'a one-time link (printed once)'],
    ['revoke <id>', 'an invitation: its link stops working'],
    ['remove <who>', 'a member, by e-mail or account id'],
  ],
  options: { org: { type: 'string' }, token: { type: 'string' }, role: { type: 'string' }, 'no-email': { type: 'boolean' }, members: { type: 'boolean' } },
  optionHelp: [
    ['--org <id>', 'the org (default: $SERVICE_ORG_ID)'],
    ['--role <member|admin>', 'invite: the role (default member)'],
    ['--no-email', 'invite: do not e-mail the link'],
    ['--members', 'list: members only (a member who is not an admin cannot see invitations)'],
    ['--token <jwt>', 'a session token (default: the saved session)'],
  ],
  examples: ['dossier members invite grace@example.com --role admin', 'dossier members list', 'dossier members remove grace@example.com'],
  run: (ctx) => dispatch(ctx, 'members', { list, invite, revoke, remove }),
};
