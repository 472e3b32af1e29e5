import type {
  Env,
  OAuthClientAuthMethod,
  OAuthClientRecord,
  OAuthCodeRecord,
  OAuthGrantRecord,
  OAuthGrantTerms,
  OAuthScope,
  OAuthTokenRecord,
} from '@dossier/core';
import type { Selectable } from 'kysely';
import type { StoreContext } from './dialect.ts';
import type { OAuthClientsTable, OAuthCodesTable, OAuthGrantsTable, OAuthTokensTable } from './schema.ts';

/** The OAuth authorization server's rows (OAuthStore): clients, codes, grants and tokens; secrets only as hashes. */

const clientFromRow = (r: Selectable<OAuthClientsTable>): OAuthClientRecord => ({
  id: r.id,
  name: r.name,
  redirectUris: JSON.parse(r.redirect_uris) as string[],
  authMethod: r.auth_method as OAuthClientAuthMethod,
  secretHash: r.secret_hash,
  metadata: JSON.parse(r.metadata) as Record<string, unknown>,
  createdAt: r.created_at,
});

type TermsRow = Pick<OAuthCodesTable, 'client_id' | 'account_id' | 'project_id' | 'env' | 'scopes' | 'resource'>;

const termsFromRow = (r: TermsRow): OAuthGrantTerms => ({
  clientId: r.client_id,
  accountId: r.account_id,
  projectId: r.project_id,
  env: r.env as Env,
  scopes: JSON.parse(r.scopes) as OAuthScope[],
  resource: r.resource,
});

const termsToRow = (t: OAuthGrantTerms): TermsRow => ({
  client_id: t.clientId,
  account_id: t.accountId,
  project_id: t.projectId,
  env: t.env,
  scopes: JSON.stringify(t.scopes),
  resource: t.resource,
});

const codeFromRow = (r: Selectable<OAuthCodesTable>): OAuthCodeRecord => ({
  ...termsFromRow(r),
  codeHash: r.code_hash,
  grantId: r.grant_id,
  redirectUri: r.redirect_uri,
  codeChallenge: r.code_challenge,
  expiresAt: r.expires_at,
  usedAt: r.used_at,
  createdAt: r.created_at,
});

const grantFromRow = (r: Selectable<OAuthGrantsTable>): OAuthGrantRecord => ({
  ...termsFromRow(r),
  id: r.id,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

const tokenFromRow = (r: Selectable<OAuthTokensTable>): OAuthTokenRecord => ({
  tokenHash: r.token_hash,
  grantId: r.grant_id,
  kind: r.kind as OAuthTokenRecord['kind'],
  expiresAt: r.expires_at,
  createdAt: r.created_at,
  usedAt: r.used_at,
  revokedAt: r.revoked_at,
});

const tokenToRow = (t: OAuthTokenRecord): OAuthTokensTable => ({
  token_hash: t.tokenHash,
  grant_id: t.grantId,
  kind: t.kind,
  expires_at: t.expiresAt,
  created_at: t.createdAt,
  used_at: t.usedAt,
  revoked_at: t.revokedAt,
});

export async function createOAuthClient({ db }: StoreContext, client: OAuthClientRecord): Promise<void> {
  await db
    .insertInto('oauth_clients')
    .values({
      id: client.id,
      name: client.name,
      redirect_uris: JSON.stringify(client.redirectUris),
      auth_method: client.authMethod,
      secret_hash: client.secretHash,
      metadata: JSON.stringify(client.metadata),
      created_at: client.createdAt,
    })
    .execute();
}

export async function getOAuthClient({ db }: StoreContext, id: string): Promise<OAuthClientRecord | null> {
  const row = await db.selectFrom('oauth_clients').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? clientFromRow(row) : null;
}

export async function createOAuthCode({ db }: StoreContext, code: OAuthCodeRecord): Promise<void> {
  await db
    .insertInto('oauth_codes')
    .values({
      ...termsToRow(code),
      code_hash: code.codeHash,
      grant_id: code.grantId,
      redirect_uri: code.redirectUri,
      code_challenge: code.codeChallenge,
      expires_at: code.expiresAt,
      used_at: code.usedAt,
      created_at: code.createdAt,
    })
    .execute();
}

export async function consumeOAuthCode({ db }: StoreContext, codeHash: string, at: string): Promise<{ code: OAuthCodeRecord; firstUse: boolean } | null> {
  // The conditional update decides the race: only the call that changes the row sees a first use.
  const marked = await db.updateTable('oauth_codes').set({ used_at: at }).where('code_hash', '=', codeHash).where('used_at', 'is', null).executeTakeFirst();
  const row = await db.selectFrom('oauth_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
  return row ? { code: codeFromRow(row), firstUse: Number(marked.numUpdatedRows) === 1 } : null;
}

export async function createOAuthGrant({ db }: StoreContext, grant: OAuthGrantRecord, tokens: OAuthTokenRecord[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('oauth_grants')
      .values({
        ...termsToRow(grant),
        id: grant.id,
        created_at: grant.createdAt,
        expires_at: grant.expiresAt,
        last_used_at: grant.lastUsedAt,
        revoked_at: grant.revokedAt,
      })
      .execute();
    if (tokens.length > 0) await trx.insertInto('oauth_tokens').values(tokens.map(tokenToRow)).execute();
  });
}

export async function getOAuthGrant({ db }: StoreContext, id: string): Promise<OAuthGrantRecord | null> {
  const row = await db.selectFrom('oauth_grants').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? grantFromRow(row) : null;
}

export async function listOAuthGrants({ db }: StoreContext, projectId: string, now: string): Promise<OAuthGrantRecord[]> {
  const rows = await db
    .selectFrom('oauth_grants')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map(grantFromRow);
}

export async function revokeOAuthGrant({ db }: StoreContext, id: string, at: string): Promise<void> {
  await db.updateTable('oauth_grants').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute();
}

export async function findOAuthToken({ db }: StoreContext, tokenHash: string): Promise<OAuthTokenRecord | null> {
  const row = await db.selectFrom('oauth_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  return row ? tokenFromRow(row) : null;
}

export async function rotateOAuthRefreshToken(
  { db }: StoreContext,
  tokenHash: string,
  at: string,
  next: OAuthTokenRecord[],
  grantExpiresAt: string,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const spent = await trx
      .updateTable('oauth_tokens')
      .set({ used_at: at })
      .where('token_hash', '=', tokenHash)
      .where('kind', '=', 'refresh')
      .where('used_at', 'is', null)
      .executeTakeFirst();
    if (Number(spent.numUpdatedRows) !== 1) return false;
    const token = await trx.selectFrom('oauth_tokens').select('grant_id').where('token_hash', '=', tokenHash).executeTakeFirstOrThrow();
    if (next.length > 0) await trx.insertInto('oauth_tokens').values(next.map(tokenToRow)).execute();
    await trx.updateTable('oauth_grants').set({ expires_at: grantExpiresAt, last_used_at: at }).where('id', '=', token.grant_id).execute();
    return true;
  });
}

export async function revokeOAuthToken({ db }: StoreContext, tokenHash: string, at: string): Promise<void> {
  await db.updateTable('oauth_tokens').set({ revoked_at: at }).where('token_hash', '=', tokenHash).where('revoked_at', 'is', null).execute();
}

export async function touchOAuthGrant({ db }: StoreContext, id: string, at: string): Promise<void> {
  await db.updateTable('oauth_grants').set({ last_used_at: at }).where('id', '=', id).execute();
}

export async function pruneOAuthRows({ db }: StoreContext, before: string): Promise<number> {
  const codes = await db.deleteFrom('oauth_codes').where('expires_at', '<', before).executeTakeFirst();
  const tokens = await db.deleteFrom('oauth_tokens').where('expires_at', '<', before).executeTakeFirst();
  return Number(codes.numDeletedRows) + Number(tokens.numDeletedRows);
}
