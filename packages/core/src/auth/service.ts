import type { Access } from '../access.ts';
import type { DossierContext } from '../context.ts';
import { DossierError, notFound } from '../domain/errors.ts';
import type { Env, Org, Project } from '../domain/types.ts';
import { loginSchema, parseInput } from '../schemas.ts';
import { isUuid, newId, nowIso } from '../util/ids.ts';
import { envOfApiKey, generateApiKey } from './api-keys.ts';
import { createTokenIssuer, type SessionClaims } from './jwt.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import type { Principal } from './principal.ts';
import { hashSecret, previewSecret } from './secrets.ts';

/** What the first start creates; the plaintext keys and password are shown exactly once. */
export interface BootstrapResult {
  email: string;
  password: string;
  orgId: string;
  projectId: string;
  liveKey: string;
  testKey: string;
}

/** Management-plane tokens live one hour. */
const TOKEN_TTL_SECONDS = 3600;

/** Accounts, orgs, projects, API keys and management-plane tokens. */
export function authService(ctx: DossierContext) {
  const tokens = createTokenIssuer(ctx.secrets.deriveKey('jwt'), TOKEN_TTL_SECONDS);

  async function createKey(projectId: string, env: Env): Promise<string> {
    const key = generateApiKey(env);
    await ctx.store.createApiKey({
      id: newId(),
      projectId,
      env,
      keyHash: hashSecret(key),
      keyEncrypted: ctx.secrets.encrypt(key),
      keyPreview: previewSecret(key),
      createdAt: nowIso(),
      revokedAt: null,
    });
    return key;
  }

  async function requireMember(claims: SessionClaims, orgId: string): Promise<void> {
    if (!isUuid(orgId) || !(await ctx.store.getMembershipRole(orgId, claims.accountId))) throw notFound('Org');
  }

  return {
    /** The project sandbox an API key opens; throws unauthorized for an unknown or revoked key. */
    async authenticateKey(key: string): Promise<NonNullable<Access> & { keyId: string }> {
      const env = envOfApiKey(key);
      const record = env ? await ctx.store.findApiKeyByHash(hashSecret(key)) : null;
      if (!record || record.env !== env) throw new DossierError('unauthorized', 'Invalid API key');
      return { projectId: record.projectId, env: record.env, keyId: record.id };
    },
    /** The principal of an API key (a project's live or test key); throws unauthorized for an unknown or revoked one. */
    async authenticateApiKey(key: string): Promise<Principal> {
      const { projectId, env, keyId } = await this.authenticateKey(key);
      return { kind: 'project_key', projectId, env, keyId };
    },
    async login(raw: unknown): Promise<{ token: string; user: { id: string; email: string } }> {
      const { email, password } = parseInput(loginSchema, raw);
      const account = await ctx.store.findAccountByEmail(email);
      const ok = account ? await verifyPassword(password, account.passwordHash) : await hashPassword(password).then(() => false);
      if (!account || !ok) throw new DossierError('unauthorized', 'Invalid email or password');
      return { token: await tokens.issue({ accountId: account.id, email: account.email }), user: { id: account.id, email: account.email } };
    },
    verifyToken: (token: string): Promise<SessionClaims> => tokens.verify(token),
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
      return { email, password, orgId: org.id, projectId: project.id, liveKey: await createKey(project.id, 'live'), testKey: await createKey(project.id, 'test') };
    },
    createKey,
  };
}

export type AuthService = ReturnType<typeof authService>;
