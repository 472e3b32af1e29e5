import { DossierError, type Logger } from '@dossier/core';
import { z } from 'zod';
import { type Mailer, smtpMailer } from './mailer.ts';

/** One OpenID Connect identity provider an operator configured (issue 42). */
export interface SsoProviderConfig {
  /** Short name in URLs: `/auth/sso/<id>/start`. */
  id: string;
  /** What the sign-in button says: "Sign in with <name>". */
  name: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** E-mail domains whose people get an account on first sign-in; invited people and linked accounts always may. */
  allowedDomains: string[];
  /** The ID token or userinfo claim that lists the person's groups. */
  groupsClaim: string;
  /** Provider groups that make their people members of an org with a role. */
  groupRoles: { group: string; orgId: string; role: 'admin' | 'member' }[];
  /** Test-only: talk plain HTTP to the provider (a provider on 127.0.0.1 in tests). */
  allowInsecureHttp: boolean;
}

/** How people sign in to this server and how their links reach them. */
export interface PeopleOptions {
  /** Whether e-mail and password sign-in is on (off once SSO works, if the operator wants). */
  passwordSignIn: boolean;
  /** Sends invitation and reset links; null: the admin passes them on. */
  mailer: Mailer | null;
  ssoProviders: SsoProviderConfig[];
}

export const DEFAULT_PEOPLE_OPTIONS: PeopleOptions = { passwordSignIn: true, mailer: null, ssoProviders: [] };

const providerSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'lowercase letters, digits and dashes'),
  name: z.string().min(1).max(100).optional(),
  issuer: z.url(),
  clientId: z.string().min(1),
  clientSecret: z.string().min(1),
  allowedDomains: z.array(z.string().min(1).transform((d) => d.toLowerCase().replace(/^@/, ''))).default([]),
  groupsClaim: z.string().min(1).default('groups'),
  groupRoles: z.array(z.strictObject({ group: z.string().min(1), orgId: z.uuid(), role: z.enum(['admin', 'member']) })).default([]),
  allowInsecureHttp: z.boolean().default(false),
});

/** DOSSIER_OIDC_PROVIDERS: a JSON array of providers (see docs/members.md). */
export function parseSsoProviders(raw: string | undefined): SsoProviderConfig[] {
  if (!raw?.trim()) return [];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new DossierError('invalid_input', 'DOSSIER_OIDC_PROVIDERS: not valid JSON (expected an array of providers)');
  }
  const parsed = z.array(providerSchema).safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DossierError('invalid_input', `DOSSIER_OIDC_PROVIDERS: ${issue?.path.join('.') || 'value'}: ${issue?.message ?? 'invalid'}`);
  }
  const ids = parsed.data.map((p) => p.id);
  if (new Set(ids).size !== ids.length) throw new DossierError('invalid_input', 'DOSSIER_OIDC_PROVIDERS: two providers have the same id');
  return parsed.data.map((p) => ({ ...p, name: p.name ?? p.id }));
}

/** DOSSIER_PASSWORD_SIGNIN (on | off), DOSSIER_SMTP_URL, DOSSIER_MAIL_FROM and DOSSIER_OIDC_PROVIDERS. */
export function loadPeopleOptions(env: NodeJS.ProcessEnv, log: Logger): PeopleOptions {
  const signIn = (env.DOSSIER_PASSWORD_SIGNIN ?? 'on').trim().toLowerCase();
  if (!['on', 'off'].includes(signIn)) throw new DossierError('invalid_input', 'DOSSIER_PASSWORD_SIGNIN: expected on or off');
  const ssoProviders = parseSsoProviders(env.DOSSIER_OIDC_PROVIDERS);
  if (signIn === 'off' && ssoProviders.length === 0) throw new DossierError('invalid_input', 'DOSSIER_PASSWORD_SIGNIN=off needs DOSSIER_OIDC_PROVIDERS: nobody could sign in');
  const smtp = env.DOSSIER_SMTP_URL?.trim();
  if (smtp && !/^smtps?:\/\//.test(smtp)) throw new DossierError('invalid_input', 'DOSSIER_SMTP_URL: expected smtp://… or smtps://…');
  const mailer = smtp ? smtpMailer(smtp, env.DOSSIER_MAIL_FROM?.trim() || 'Dossier <dossier@localhost>', log) : null;
  return { passwordSignIn: signIn === 'on', mailer, ssoProviders };
}
