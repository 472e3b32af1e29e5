import type { PeopleStore } from '../ports/people-store.ts';
import type { TenancyStore } from '../ports/tenancy-store.ts';
import type { AccountStore } from '../ports/account-store.ts';
import { createHash, timingSafeEqual } from 'node:crypto';
import { hashSecret } from '../auth/secrets.ts';
import type { AuthService, SignInMeta, SignedIn } from '../auth/service.ts';
import { DossierError } from '../domain/errors.ts';
import type { Account } from '../domain/types.ts';
import type { MemberRole, SsoLoginRecord } from '../ports/people-store.ts';
import { isUuid, newId, nowIso } from '../util/ids.ts';
import { type InvitationService, newLinkToken } from './invitations.ts';
import type { SsoAccounts } from '../api/people.ts';

/** What an identity provider vouched for in its ID token (checked by the caller: signature, issuer, nonce, audience). */
export interface SsoIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  groups: string[];
}

/** An identity provider's rules for who may sign in and with which roles. */
export interface SsoPolicy {
  /** E-mail domains whose people get an account on first sign-in (empty: only invited people and linked accounts). */
  allowedDomains: string[];
  /** Groups of the provider that make their people members of an org with a role (applied at every sign-in). */
  groupRoles: { group: string; orgId: string; role: MemberRole }[];
}

/** Accounts of single sign-on have no password: this hash never verifies. */
const NO_PASSWORD = 'none:sso';

/** The provider id of a CLI hand-off record (no configured provider has a colon in its id). */
const HANDOFF = ':cli';

/** How long the CLI has to redeem the code its loopback listener received. */
const HANDOFF_TTL_MS = 2 * 60_000;

/** The PKCE S256 challenge of a verifier (RFC 7636): base64url of its sha256. */
export const s256 = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');

const sameText = (left: string, right: string): boolean => left.length === right.length && timingSafeEqual(Buffer.from(left), Buffer.from(right));

const domainOf = (email: string): string => email.slice(email.lastIndexOf('@') + 1).toLowerCase();

/**
 * Sign in with an identity provider (issue 42): a linked subject signs into its account; otherwise a verified e-mail
 * links the account that has it or, when invited or of an allowed domain, gets a new account. Invitations to the
 * e-mail are accepted, and the provider's groups set roles where the operator mapped them.
 */
export function ssoAccounts(store: PeopleStore & TenancyStore & AccountStore, auth: AuthService, invitations: InvitationService): SsoAccounts {
  async function accountOf(identity: SsoIdentity & { email: string }, policy: SsoPolicy): Promise<Account> {
    const linkedId = await store.findAccountIdBySsoIdentity(identity.issuer, identity.subject);
    const linked = linkedId ? await store.getAccount(linkedId) : null;
    if (linked) return linked;
    const invited = (await store.listPendingInvitationsForEmail(identity.email, nowIso())).length > 0;
    if (!invited && !policy.allowedDomains.includes(domainOf(identity.email))) {
      throw new DossierError('forbidden', `Accounts for ${domainOf(identity.email)} e-mail addresses are not allowed here: ask an admin to invite you`);
    }
    let account = await store.findAccountByEmail(identity.email);
    if (!account) {
      account = { id: newId(), email: identity.email, passwordHash: NO_PASSWORD, createdAt: nowIso() };
      await store.createAccount(account);
    }
    await store.linkSsoIdentity(identity.issuer, identity.subject, account.id, nowIso());
    return account;
  }

  async function applyGroupRoles(accountId: string, groups: string[], policy: SsoPolicy): Promise<void> {
    const roles = new Map<string, MemberRole>();
    for (const { group, orgId, role } of policy.groupRoles) {
      if (groups.includes(group) && isUuid(orgId) && roles.get(orgId) !== 'admin') roles.set(orgId, role);
    }
    for (const [orgId, role] of roles) {
      if (await store.getOrg(orgId)) await store.setMembership(orgId, accountId, role);
    }
  }

  async function admit(identity: SsoIdentity, policy: SsoPolicy): Promise<Account> {
    if (!identity.email) throw new DossierError('forbidden', 'The identity provider did not share an e-mail address');
    if (!identity.emailVerified) throw new DossierError('forbidden', 'The identity provider has not verified this e-mail address');
    const account = await accountOf({ ...identity, email: identity.email }, policy);
    await invitations.acceptAllFor(account);
    await applyGroupRoles(account.id, identity.groups, policy);
    return account;
  }

  return {
    /** Keep an attempt's secrets (by the state's hash) until the provider answers. */
    remember: (login: SsoLoginRecord) => store.createSsoLogin(login),
    /** The attempt of a state hash, once; null when unknown, expired or already taken (a replayed answer). */
    take: (stateHash: string) => store.takeSsoLogin(stateHash, nowIso()),
    /**
     * Who the provider's identity is here (the checks above; invitations accepted, group roles applied), without a
     * session yet: the caller signs the account in where the sign-in was started.
     */
    admit,
    async signIn(identity: SsoIdentity, policy: SsoPolicy, meta: SignInMeta = {}): Promise<SignedIn> {
      return auth.startSession(await admit(identity, policy), 'sso', meta);
    },
    /**
     * Hand a signed-in account over to the CLI that started the sign-in (`dossier login --sso`): a one-time code,
     * valid two minutes, that only the holder of the verifier of `challenge` (PKCE S256) can redeem.
     */
    async handOff(account: Account, challenge: string): Promise<string> {
      const code = newLinkToken();
      const createdAt = new Date();
      await store.createSsoLogin({
        stateHash: hashSecret(code),
        providerId: HANDOFF,
        codeVerifier: challenge,
        nonce: '',
        context: JSON.stringify({ accountId: account.id }),
        createdAt: createdAt.toISOString(),
        expiresAt: new Date(createdAt.getTime() + HANDOFF_TTL_MS).toISOString(),
      });
      return code;
    },
    /** Redeem a hand-off code with its verifier: a new session of the account (once; a wrong verifier spends the code). */
    async redeem(code: string, verifier: string, meta: SignInMeta = {}): Promise<SignedIn> {
      const record = code ? await store.takeSsoLogin(hashSecret(code), nowIso()) : null;
      if (!record || record.providerId !== HANDOFF) throw new DossierError('not_found', 'This sign-in code has expired or was already used: sign in again');
      if (!sameText(s256(verifier), record.codeVerifier))
        throw new DossierError('unauthorized', 'The code verifier does not match this sign-in: sign in again');
      const account = await store.getAccount((JSON.parse(record.context ?? '{}') as { accountId?: string }).accountId ?? '');
      if (!account) throw new DossierError('unauthorized', 'The account of this sign-in no longer exists');
      return auth.startSession(account, 'sso', meta);
    },
  };
}

export type { SsoAccounts };
