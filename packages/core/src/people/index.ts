import type { AuthService } from '../auth/service.ts';
import type { DossierContext } from '../context.ts';
import { accountService } from './accounts.ts';
import { invitationService } from './invitations.ts';
import { DEFAULT_PEOPLE_SETTINGS, type PeopleSettings } from './settings.ts';
import { ssoAccounts } from './sso.ts';
import type { PeopleService } from '../api/people.ts';

export type { AccountService, IssuedReset, SessionView } from './accounts.ts';
export type { InvitationService, InvitationView } from './invitations.ts';
export { checkPasswordStrength } from './password-policy.ts';
export * as peopleSchemas from './schemas.ts';
export { DEFAULT_PEOPLE_SETTINGS, type PeopleSettings } from './settings.ts';
export type { SsoAccounts, SsoIdentity, SsoPolicy } from './sso.ts';

/** People on a team (issue 42): invitations, accounts and their sessions, password resets, single sign-on accounts. */
export function peopleService(ctx: DossierContext, auth: AuthService, overrides: Partial<PeopleSettings> = {}): PeopleService {
  const settings = { ...DEFAULT_PEOPLE_SETTINGS, ...overrides };
  const invitations = invitationService(ctx, auth, settings);
  return { settings, invitations, accounts: accountService(ctx, settings), sso: ssoAccounts(ctx, auth, invitations) };
}

export type { PeopleService };
