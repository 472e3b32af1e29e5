/**
 * The people group of the public API (`dossier.people`, issue 42): invitations, accounts and their sessions,
 * password resets, and single sign-on accounts. Reset and invitation links carry a token shown once; the caller
 * (the server) mails it or hands it over.
 */
import type { SessionClaims } from '../auth/jwt.ts';
import type { SignedIn, SignInMeta } from '../auth/service.ts';
import type { Account } from '../domain/types.ts';
import type { IssuedReset, SessionView } from '../people/accounts.ts';
import type { InvitationView } from '../people/invitations.ts';
import type { PeopleSettings } from '../people/settings.ts';
import type { SsoIdentity, SsoPolicy } from '../people/sso.ts';
import type { MemberRole, SsoLoginRecord } from '../ports/people-store.ts';

/** What an invitation link's page shows before the invitee accepts. */
export interface InvitationPreview {
  /** The org the invitation is to. */
  orgName: string;
  /** The e-mail invited. */
  email: string;
  /** The role the invitee will hold. */
  role: MemberRole;
  /** When the link stops working. */
  expiresAt: string;
  /** Whether the e-mail already has an account (then accepting asks for its password). */
  hasAccount: boolean;
}

/** Invitations to an org: issued by its admins, accepted with the link's token. */
export interface InvitationService {
  /**
   * Invite an e-mail to the org with a role (`{ email, role }`): the invitation, its link token (shown once), and
   * whether the server should e-mail it.
   * @throws {DossierError} `not_found` (org), `forbidden` (not an admin), `invalid_input`, `conflict` (already a member).
   */
  invite(claims: SessionClaims, orgId: string, raw: unknown): Promise<{ invitation: InvitationView; token: string; sendEmail: boolean }>;
  /**
   * The org's pending invitations.
   * @throws {DossierError} `not_found`, `forbidden`.
   */
  list(claims: SessionClaims, orgId: string): Promise<InvitationView[]>;
  /**
   * Revoke a pending invitation: its link stops working.
   * @throws {DossierError} `not_found` (no pending invitation with this id), `forbidden`.
   */
  revoke(claims: SessionClaims, orgId: string, invitationId: string): Promise<void>;
  /**
   * What the link's page shows before the invitee accepts.
   * @throws {DossierError} `not_found` (the link was used, revoked, or has expired).
   */
  preview(token: string): Promise<InvitationPreview>;
  /**
   * Accept (`{ token, password }`): the account is created (or the existing one's password checked), made a member,
   * and signed in.
   * @throws {DossierError} `not_found` (unusable link), `unauthorized` (wrong password of an existing account),
   *   `invalid_input` (a weak password).
   */
  accept(raw: unknown, meta?: SignInMeta): Promise<SignedIn & { orgId: string; role: MemberRole }>;
  /** Accept every pending invitation to a verified e-mail (single sign-on's first sign-in of an invited person). */
  acceptAllFor(account: { id: string; email: string }): Promise<number>;
}

/** The signed-in account, its sessions, and password resets. */
export interface AccountService {
  /** End every session and token of the account: a new epoch (tokens and page sessions) and every session revoked. */
  endAllSessions(accountId: string): Promise<void>;
  /**
   * The signed-in account.
   * @throws {DossierError} `unauthorized` (the account no longer exists).
   */
  me(claims: SessionClaims): Promise<{ id: string; email: string }>;
  /**
   * Change the account's e-mail (`{ email, currentPassword }`).
   * @throws {DossierError} `unauthorized` (wrong current password), `invalid_input`, `conflict` (the e-mail is taken).
   */
  changeEmail(claims: SessionClaims, raw: unknown): Promise<{ id: string; email: string }>;
  /** The account's live sessions, newest first, the current one marked. */
  listSessions(claims: SessionClaims): Promise<SessionView[]>;
  /**
   * End one of the account's sessions: its tokens stop working at once.
   * @throws {DossierError} `not_found` (no live session of the caller with this id).
   */
  endSession(claims: SessionClaims, sessionId: string): Promise<void>;
  /**
   * An admin's reset link for a member of their org.
   * @throws {DossierError} `not_found` (org or member), `forbidden` (the person also belongs to an org the caller does
   *   not administer).
   */
  adminReset(claims: SessionClaims, orgId: string, accountId: string): Promise<IssuedReset>;
  /** A link for the person who asked (`{ email }`), or null for an unknown e-mail (the caller answers the same either way). */
  requestReset(raw: unknown): Promise<IssuedReset | null>;
  /**
   * Set the new password with a reset link (`{ token, password }`, once); every session and token of the account ends.
   * @throws {DossierError} `not_found` (used or expired link), `invalid_input` (a weak password).
   */
  completeReset(raw: unknown): Promise<void>;
}

/** Accounts signed in by an identity provider (OIDC single sign-on), and the hand-off to the CLI. */
export interface SsoAccounts {
  /** Keep an attempt's secrets (by the state's hash) until the provider answers. */
  remember(login: SsoLoginRecord): Promise<void>;
  /** The attempt of a state hash, once; null when unknown, expired or already taken (a replayed answer). */
  take(stateHash: string): Promise<SsoLoginRecord | null>;
  /**
   * Who the provider's identity is here (invitations accepted, group roles applied), without a session yet: the
   * caller signs the account in where the sign-in was started.
   * @throws {DossierError} `forbidden` (no verified e-mail, or a domain the policy does not admit).
   */
  admit(identity: SsoIdentity, policy: SsoPolicy): Promise<Account>;
  /**
   * Admit the identity and start a session of its account.
   * @throws {DossierError} as `admit`.
   */
  signIn(identity: SsoIdentity, policy: SsoPolicy, meta?: SignInMeta): Promise<SignedIn>;
  /**
   * Hand a signed-in account over to the CLI that started the sign-in (`dossier login --sso`): a one-time code,
   * valid two minutes, that only the holder of the verifier of `challenge` (PKCE S256) can redeem.
   */
  handOff(account: Account, challenge: string): Promise<string>;
  /**
   * Redeem a hand-off code with its verifier: a new session of the account (once; a wrong verifier spends the code).
   * @throws {DossierError} `not_found` (expired or used code), `unauthorized` (wrong verifier, or the account is gone).
   */
  redeem(code: string, verifier: string, meta?: SignInMeta): Promise<SignedIn>;
}

/** `dossier.people`: invitations, accounts and sessions, password resets, single sign-on. */
export interface PeopleService {
  /** The lifetimes of invitation and reset links in force. */
  readonly settings: PeopleSettings;
  /** Invitations to an org. */
  readonly invitations: InvitationService;
  /** The signed-in account, its sessions, and password resets. */
  readonly accounts: AccountService;
  /** Accounts signed in by an identity provider. */
  readonly sso: SsoAccounts;
}
