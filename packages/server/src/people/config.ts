import { DossierError, type Logger } from '@dossier/core';
import { z } from 'zod';
import type { ServerConfig } from '../config.ts';
import { ORG_ROLES } from '@dossier/core/vocabulary';
import { type Mailer, smtpMailer } from './mailer.ts';

type OrgRole = (typeof ORG_ROLES)[number];

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
  groupRoles: { group: string; orgId: string; role: OrgRole }[];
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
  allowedDomains: z
    .array(
      z
        .string()
        .min(1)
        .transform((d) => d.toLowerCase().replace(/^@/, '')),
    )
    .default([]),
  groupsClaim: z.string().min(1).default('groups'),
  groupRoles: z.array(z.strictObject({ group: z.string().min(1), orgId: z.uuid(), role: z.enum(ORG_ROLES) })).default([]),
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

/** How people sign in, from the server's settings (DOSSIER_PASSWORD_SIGNIN, DOSSIER_OIDC_PROVIDERS, DOSSIER_SMTP_URL, DOSSIER_MAIL_FROM). */
export function loadPeopleOptions(config: Pick<ServerConfig, 'passwordSignIn' | 'oidcProviders' | 'smtpUrl' | 'mailFrom'>, log: Logger): PeopleOptions {
  if (!config.passwordSignIn && config.oidcProviders.length === 0)
    throw new DossierError('invalid_input', 'DOSSIER_PASSWORD_SIGNIN=off needs DOSSIER_OIDC_PROVIDERS: nobody could sign in');
  const mailer = config.smtpUrl ? smtpMailer(config.smtpUrl, config.mailFrom, log) : null;
  return { passwordSignIn: config.passwordSignIn, mailer, ssoProviders: [...config.oidcProviders] };
}
