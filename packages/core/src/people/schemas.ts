import { z } from 'zod';
import { ORG_ROLES } from '../vocabulary.ts';

/** Request and response bodies of people on a team (issue 42): invitations, accounts, sessions, password resets. */

const timestamp = z.string().describe('ISO 8601 time');
const email = z
  .string()
  .trim()
  .min(3)
  .max(320)
  .pipe(z.email({ message: 'must be an e-mail address' }));
const linkToken = z.string().min(20).max(200).describe('The secret of the link (the `token` query parameter of the URL)');
const newPassword = z.string().min(1).max(1024).describe('12 characters or more, not a common password, not the e-mail');
const role = z.enum(ORG_ROLES);

export const inviteSchema = z.strictObject({
  email,
  role: role.default('member'),
  sendEmail: z.boolean().default(true).describe('E-mail the link when the server has SMTP settings (it is in the answer either way)'),
});
export const acceptInvitationSchema = z.strictObject({
  token: linkToken,
  password: newPassword.describe("A new password; or, when the e-mail already has an account, that account's password"),
});
export const invitationTokenQuery = z.strictObject({ token: linkToken });
export const changeEmailSchema = z.strictObject({ email, currentPassword: z.string().min(1).max(1024) });
export const requestResetSchema = z.strictObject({ email: z.string().trim().min(1).max(320) });
export const completeResetSchema = z.strictObject({ token: linkToken, newPassword });
export const issueResetSchema = z.strictObject({
  sendEmail: z.boolean().default(true).describe('E-mail the link when the server has SMTP settings (it is in the answer either way)'),
});

export const invitation = z
  .object({
    id: z.string(),
    orgId: z.string(),
    email: z.string(),
    role,
    invitedBy: z.string().nullable(),
    createdAt: timestamp,
    expiresAt: timestamp,
  })
  .meta({ id: 'Invitation' });
export const createdInvitation = invitation
  .extend({
    url: z.string().describe('The one-time link to pass on: shown in this answer only'),
    emailed: z.boolean().describe('Whether the server e-mailed the link'),
  })
  .meta({ id: 'CreatedInvitation' });
export const invitationPreview = z.object({ orgName: z.string(), email: z.string(), role, expiresAt: timestamp, hasAccount: z.boolean() });
export const acceptedInvitation = z.object({ token: z.string(), user: z.object({ id: z.string(), email: z.string() }), orgId: z.string(), role });
export const account = z.object({ id: z.string(), email: z.string() });
export const session = z
  .object({
    id: z.string(),
    method: z.enum(['password', 'sso', 'invitation', 'reset']),
    userAgent: z.string().nullable(),
    createdAt: timestamp,
    expiresAt: timestamp,
    current: z.boolean().describe('The session of the token of this request'),
  })
  .meta({ id: 'AccountSession' });
export const resetLink = z.object({
  url: z.string().describe('The one-time link to pass on: shown in this answer only'),
  expiresAt: timestamp,
  emailed: z.boolean(),
});
export const resetRequested = z.object({ message: z.string() });
