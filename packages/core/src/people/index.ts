import type { PeopleStore } from '../ports/people-store.ts';
import type { AccountStore } from '../ports/account-store.ts';
import type { TenancyStore } from '../ports/tenancy-store.ts';
import type { AuthService } from '../auth/service.ts';
import type { ContextPart } from '../context.ts';
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
export function peopleService(
  ctx: ContextPart<never, PeopleStore & AccountStore & TenancyStore>,
  auth: AuthService,
  overrides: Partial<PeopleSettings> = {},
): PeopleService {
  const settings = { ...DEFAULT_PEOPLE_SETTINGS, ...overrides };
  const invitations = invitationService(ctx, auth, settings);
  return { settings, invitations, accounts: accountService(ctx, settings), sso: ssoAccounts(ctx.store, auth, invitations) };
}

export type { PeopleService };
