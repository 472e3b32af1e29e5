/**
 * The auth group of the public API (`dossier.auth`): API-key and session authentication, sign-in, sessions (JWT)
 * and the first-start bootstrap. Unknown keys, wrong passwords and dead sessions all answer `unauthorized`.
 */
import type { Access } from '../access.ts';
import type { SessionClaims } from '../auth/jwt.ts';
import type { Principal } from '../auth/principal.ts';
import type { BootstrapResult, SignedIn, SignInMeta } from '../auth/service.ts';
import type { ApiKeyRecord, Env, Org, Project } from '../domain/types.ts';
import type { SessionMethod } from '../ports/people-store.ts';

/** `dossier.auth`: who a caller is (API key or session token), sign-in, and the first-start bootstrap. */
export interface AuthService {
  /**
   * The project sandbox an API key opens.
   * @throws {DossierError} `unauthorized` (unknown or revoked key, or an org key).
   */
  authenticateKey(key: string): Promise<NonNullable<Access> & { keyId: string }>;
  /**
   * The principal of an API key (a project's live or test key, or an org key).
   * @throws {DossierError} `unauthorized` (unknown or revoked key).
   * @example
   * const principal = await dossier.auth.authenticateApiKey(bearer); // { kind: 'project_key', projectId, env, keyId }
   */
  authenticateApiKey(key: string): Promise<Principal>;
  /** Whether a key (project or org) is still valid: open streams close once theirs is revoked. */
  isKeyActive(keyId: string): Promise<boolean>;
  /**
   * The account of an e-mail and password, with its token epoch (as slow for an unknown e-mail as for a known one).
   * @throws {DossierError} `unauthorized` (wrong e-mail or password), `invalid_input`.
   */
  checkCredentials(raw: unknown): Promise<SessionClaims>;
  /**
   * Sign in with e-mail and password: a new session and its token.
   * @throws {DossierError} as `checkCredentials`.
   * @example
   * const { token } = await dossier.auth.login({ email: 'ada@example.com', password });
   */
  login(raw: unknown, meta?: SignInMeta): Promise<SignedIn>;
  /** Start a session of the account (recorded, so it can be listed and ended) and issue its token. */
  startSession(account: { id: string; email: string }, method: SessionMethod, meta?: SignInMeta): Promise<SignedIn>;
  /**
   * A token's claims, when it is valid, unexpired, of its account's current epoch (older ones were revoked) and, when
   * it names a session, that session is live (issue 42: ending a session or removing a member ends its tokens at once).
   * @throws {DossierError} `unauthorized` (invalid, expired or revoked token, ended session).
   */
  verifyToken(token: string): Promise<SessionClaims>;
  /**
   * Sliding renewal (the dashboard's cookie session, issue 34): a verified token of a session past half its life is
   * replaced by a fresh one of the same session, whose expiry moves on by the token lifetime. Null while the token is
   * young, or when it names no live session. Ending the session or "log out everywhere" still ends it at once.
   */
  renewToken(claims: SessionClaims): Promise<string | null>;
  /** The orgs the signed-in account is a member of. */
  listOrgs(claims: SessionClaims): Promise<Org[]>;
  /**
   * The projects of an org the account is a member of.
   * @throws {DossierError} `not_found` (unknown org, or not a member).
   */
  listProjects(claims: SessionClaims, orgId: string): Promise<Project[]>;
  /**
   * Create the admin account, an org, a project and its live and test keys, unless the account exists (then null).
   * @example
   * const first = await dossier.auth.bootstrap('admin@example.com', password); // keys shown once
   */
  bootstrap(email: string, password: string): Promise<BootstrapResult | null>;
  /**
   * The project sandbox a signed-in person acts in from the dashboard (issue 34): any member of the project's org
   * (the role a JWT needs to list the project).
   * @throws {DossierError} `not_found` (unknown project, or another org's).
   */
  sessionSandbox(claims: SessionClaims, projectId: string, env: Env): Promise<NonNullable<Access>>;
  /** A new API key of a project sandbox (the secret, shown once). */
  createKey(projectId: string, env: Env): Promise<string>;
  /** A new named API key of a project sandbox: the secret (shown once) and its stored record. */
  createKeyRecord(projectId: string, env: Env, name?: string | null): Promise<{ key: string; record: ApiKeyRecord }>;
}
