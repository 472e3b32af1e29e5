import type { KeyStore } from '../ports/key-store.ts';
import type { AccountStore } from '../ports/account-store.ts';
import type { TenancyStore } from '../ports/tenancy-store.ts';
import type { PeopleStore } from '../ports/people-store.ts';
import type { Access } from '../access.ts';
import type { ContextPart } from '../context.ts';
import { DossierError, notFound } from '../domain/errors.ts';
import type { ApiKeyRecord, Env, Org, Project } from '../domain/types.ts';
import type { SessionMethod } from '../ports/people-store.ts';
import { loginSchema, parseInput } from '../schemas.ts';
import { isUuid, newId, nowIso } from '../util/ids.ts';
import { envOfApiKey, generateApiKey, isOrgApiKey } from './api-keys.ts';
import { createTokenIssuer, type SessionClaims } from './jwt.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import type { Principal } from './principal.ts';
import { hashSecret, previewSecret } from './secrets.ts';
import type { AuthService } from '../api/auth.ts';

/** What the first start creates; the plaintext keys and password are shown exactly once. */
export interface BootstrapResult {
  email: string;
  password: string;
  orgId: string;
  projectId: string;
  liveKey: string;
  testKey: string;
}

/** A key's last use is written at most this often (a write per request would cost more than it tells). */
const KEY_TOUCH_INTERVAL_MS = 60_000;

/** Management-plane tokens live one hour. */
const TOKEN_TTL_SECONDS = 3600;

/** Who signed in and from where, for their sessions list. */
export interface SignInMeta {
  userAgent?: string | null;
}

/** A management-plane token and the account it signs in. */
export interface SignedIn {
  token: string;
  user: { id: string; email: string };
}

/** Accounts, orgs, projects, API keys and management-plane tokens. */
export function authService(ctx: ContextPart<'log' | 'secrets', KeyStore & AccountStore & TenancyStore & PeopleStore>): AuthService {
  const tokens = createTokenIssuer(ctx.secrets.deriveKey('jwt'), TOKEN_TTL_SECONDS);

  /** A new key of a project sandbox; the plaintext is returned once (with its record) and only its hash can find it again. */
  async function createKeyRecord(projectId: string, env: Env, name: string | null = null): Promise<{ key: string; record: ApiKeyRecord }> {
    const key = generateApiKey(env);
    const record: ApiKeyRecord = {
      id: newId(),
      projectId,
      env,
      keyHash: hashSecret(key),
      keyEncrypted: ctx.secrets.encrypt(key),
      keyPreview: previewSecret(key),
      name,
      createdAt: nowIso(),
      lastUsedAt: null,
      revokedAt: null,
    };
    await ctx.store.createApiKey(record);
    return { key, record };
  }
  const createKey = async (projectId: string, env: Env): Promise<string> => (await createKeyRecord(projectId, env)).key;

  /** When each key was last recorded as used: the store is written at most once a minute per key. */
  const lastTouched = new Map<string, number>();
  function noteUse(keyId: string): void {
    const now = Date.now();
    if (now - (lastTouched.get(keyId) ?? 0) < KEY_TOUCH_INTERVAL_MS) return;
    lastTouched.set(keyId, now);
    ctx.store.touchApiKey(keyId, new Date(now).toISOString()).catch((err) => ctx.log.warn('key use not recorded', { keyId, error: String(err) }));
  }

  async function requireMember(claims: SessionClaims, orgId: string): Promise<void> {
    if (!isUuid(orgId) || !(await ctx.store.getMembershipRole(orgId, claims.accountId))) throw notFound('Org');
  }

  /** The account of an e-mail and password, with its token epoch; unauthorized otherwise (as slow either way). */
  async function checkCredentials(raw: unknown): Promise<SessionClaims> {
    const { email, password } = parseInput(loginSchema, raw);
    const account = await ctx.store.findAccountByEmail(email);
    const ok = account ? await verifyPassword(password, account.passwordHash) : await hashPassword(password).then(() => false);
    if (!account || !ok) throw new DossierError('unauthorized', 'Invalid email or password');
    return { accountId: account.id, email: account.email, epoch: await ctx.store.getTokenEpoch(account.id) };
  }

  /** Start a session of the account (recorded, so it can be listed and ended) and issue its token. */
  async function startSession(account: { id: string; email: string }, method: SessionMethod, meta: SignInMeta = {}): Promise<SignedIn> {
    const id = newId();
    const createdAt = nowIso();
    const expiresAt = new Date(Date.parse(createdAt) + TOKEN_TTL_SECONDS * 1000).toISOString();
    await ctx.store.createSession({
      id,
      accountId: account.id,
      method,
      userAgent: meta.userAgent?.slice(0, 200) || null,
      createdAt,
      expiresAt,
      revokedAt: null,
    });
    const epoch = await ctx.store.getTokenEpoch(account.id);
    return { token: await tokens.issue({ accountId: account.id, email: account.email, epoch, sessionId: id }), user: { id: account.id, email: account.email } };
  }

  async function isSessionLive(accountId: string, sessionId: string): Promise<boolean> {
    const session = isUuid(sessionId) ? await ctx.store.getSession(sessionId) : null;
    return session !== null && session.accountId === accountId && session.revokedAt === null && session.expiresAt > nowIso();
  }

  return {
    /** The project sandbox an API key opens; throws unauthorized for an unknown or revoked key. */
    async authenticateKey(key: string): Promise<NonNullable<Access> & { keyId: string }> {
      const env = envOfApiKey(key);
      const record = env ? await ctx.store.findApiKeyByHash(hashSecret(key)) : null;
      if (!record || record.env !== env) throw new DossierError('unauthorized', 'Invalid API key');
      return { projectId: record.projectId, env: record.env, keyId: record.id };
    },
    /** The principal of an API key (a project's live or test key, or an org key); unauthorized for an unknown or revoked one. */
    async authenticateApiKey(key: string): Promise<Principal> {
      if (isOrgApiKey(key)) {
        const record = await ctx.store.findOrgApiKeyByHash(hashSecret(key));
        if (!record) throw new DossierError('unauthorized', 'Invalid API key');
        noteUse(record.id);
        return { kind: 'org_key', orgId: record.orgId, keyId: record.id };
      }
      const { projectId, env, keyId } = await this.authenticateKey(key);
      noteUse(keyId);
      return { kind: 'project_key', projectId, env, keyId };
    },
    /** Whether a key (project or org) is still valid: open streams close once theirs is revoked. */
    async isKeyActive(keyId: string): Promise<boolean> {
      const record = (await ctx.store.getApiKey(keyId)) ?? (await ctx.store.getOrgApiKey(keyId));
      return record !== null && record.revokedAt === null;
    },
    checkCredentials,
    async login(raw: unknown, meta: SignInMeta = {}): Promise<SignedIn> {
      const { accountId, email } = await checkCredentials(raw);
      return startSession({ id: accountId, email }, 'password', meta);
    },
    startSession,
    /**
     * A token's claims, when it is valid, unexpired, of its account's current epoch (older ones were revoked) and, when
     * it names a session, that session is live (issue 42: ending a session or removing a member ends its tokens at once).
     */
    async verifyToken(token: string): Promise<SessionClaims> {
      const claims = await tokens.verify(token);
      if (!(await ctx.store.getAccount(claims.accountId))) throw new DossierError('unauthorized', 'Invalid or expired token');
      const epoch = await ctx.store.getTokenEpoch(claims.accountId);
      if ((epoch ?? null) !== (claims.epoch ?? null)) throw new DossierError('unauthorized', 'Invalid or expired token');
      if (claims.sessionId && !(await isSessionLive(claims.accountId, claims.sessionId)))
        throw new DossierError('unauthorized', 'This session has ended: sign in again');
      return claims;
    },
    /**
     * Sliding renewal (the dashboard's cookie session, issue 34): a verified token of a session past half its life is
     * replaced by a fresh one of the same session, whose expiry moves on by the token lifetime. Null while the token is
     * young, or when it names no live session. Ending the session or "log out everywhere" still ends it at once.
     */
    async renewToken(claims: SessionClaims): Promise<string | null> {
      const now = Date.now();
      if (!claims.sessionId || claims.expiresAt === undefined || claims.expiresAt * 1000 - now > (TOKEN_TTL_SECONDS * 1000) / 2) return null;
      const expiresAt = new Date(now + TOKEN_TTL_SECONDS * 1000).toISOString();
      if (!(await ctx.store.extendSession(claims.sessionId, expiresAt, new Date(now).toISOString()))) return null;
      return tokens.issue(claims);
    },
    async listOrgs(claims: SessionClaims): Promise<Org[]> {
      return ctx.store.listOrgsForAccount(claims.accountId);
    },
    async listProjects(claims: SessionClaims, orgId: string): Promise<Project[]> {
      await requireMember(claims, orgId);
      return ctx.store.listProjects(orgId);
    },
    /** Create the admin account, an org, a project and its live and test keys, unless the account exists. */
    async bootstrap(email: string, password: string): Promise<BootstrapResult | null> {
      if (await ctx.store.findAccountByEmail(email)) return null;
      const accountId = newId();
      await ctx.store.createAccount({ id: accountId, email, passwordHash: await hashPassword(password), createdAt: nowIso() });
      const org: Org = { id: newId(), name: 'Default org', createdAt: nowIso() };
      await ctx.store.createOrg(org, accountId, 'admin');
      const project: Project = { id: newId(), orgId: org.id, name: 'Default project', createdAt: nowIso() };
      await ctx.store.createProject(project);
      return {
        email,
        password,
        orgId: org.id,
        projectId: project.id,
        liveKey: await createKey(project.id, 'live'),
        testKey: await createKey(project.id, 'test'),
      };
    },
    /**
     * The project sandbox a signed-in person acts in from the dashboard (issue 34): any member of the project's org
     * (the role a JWT needs to list the project); 404 for unknown projects and other orgs' projects, as for JWTs.
     */
    async sessionSandbox(claims: SessionClaims, projectId: string, env: Env): Promise<NonNullable<Access>> {
      const project = isUuid(projectId) ? await ctx.store.getProject(projectId) : null;
      if (!project) throw notFound('Project');
      const role = await ctx.store.getMembershipRole(project.orgId, claims.accountId);
      if (!role) throw notFound('Project');
      return { projectId: project.id, env };
    },
    createKey,
    createKeyRecord,
  };
}

export type { AuthService };
