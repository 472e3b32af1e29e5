import { type Account, type ApiKeyRecord, DossierError, type Org, type Project } from '@dossier/core';
import type { StoreContext } from './dialect.ts';
import { accountFromRow, apiKeyFromRow, apiKeyToRow, orgFromRow, projectFromRow } from './rows.ts';
import type { ORG_ROLES } from '@dossier/core/vocabulary';

type OrgRole = (typeof ORG_ROLES)[number];

/** Accounts, orgs, memberships, projects and API keys. */

export async function createAccount({ db, dialect }: StoreContext, account: Account): Promise<void> {
  const row = {
    id: account.id,
    email: account.email,
    email_normalized: account.email.toLowerCase(),
    password_hash: account.passwordHash,
    created_at: account.createdAt,
  };
  try {
    await db.insertInto('accounts').values(row).execute();
  } catch (err) {
    if (!dialect.isUniqueViolation(err)) throw err;
    throw new DossierError('conflict', 'An account with this email already exists', { cause: err });
  }
}

export async function findAccountByEmail({ db }: StoreContext, email: string): Promise<Account | null> {
  const row = await db.selectFrom('accounts').selectAll().where('email_normalized', '=', email.toLowerCase()).executeTakeFirst();
  return row ? accountFromRow(row) : null;
}

export async function createOrg({ db }: StoreContext, org: Org, accountId: string, role: OrgRole): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('orgs').values({ id: org.id, name: org.name, created_at: org.createdAt }).execute();
    await trx.insertInto('memberships').values({ org_id: org.id, account_id: accountId, role }).execute();
  });
}

export async function listOrgsForAccount({ db }: StoreContext, accountId: string): Promise<Org[]> {
  const rows = await db
    .selectFrom('orgs')
    .innerJoin('memberships', 'memberships.org_id', 'orgs.id')
    .selectAll('orgs')
    .where('memberships.account_id', '=', accountId)
    .orderBy('orgs.created_at')
    .orderBy('orgs.id')
    .execute();
  return rows.map(orgFromRow);
}

export async function setMembership({ db }: StoreContext, orgId: string, accountId: string, role: OrgRole): Promise<void> {
  await db
    .insertInto('memberships')
    .values({ org_id: orgId, account_id: accountId, role })
    .onConflict((oc) => oc.columns(['org_id', 'account_id']).doUpdateSet({ role }))
    .execute();
}

export async function getMembershipRole({ db }: StoreContext, orgId: string, accountId: string): Promise<OrgRole | null> {
  const row = await db.selectFrom('memberships').select('role').where('org_id', '=', orgId).where('account_id', '=', accountId).executeTakeFirst();
  return row?.role ?? null;
}

export async function createProject({ db }: StoreContext, project: Project): Promise<void> {
  const row = { id: project.id, org_id: project.orgId, name: project.name, created_at: project.createdAt };
  await db.insertInto('projects').values(row).execute();
}

export async function getProject({ db }: StoreContext, id: string): Promise<Project | null> {
  const row = await db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? projectFromRow(row) : null;
}

export async function listProjects({ db }: StoreContext, orgId: string): Promise<Project[]> {
  const rows = await db.selectFrom('projects').selectAll().where('org_id', '=', orgId).orderBy('created_at').orderBy('id').execute();
  return rows.map(projectFromRow);
}

export async function createApiKey({ db, dialect }: StoreContext, key: ApiKeyRecord): Promise<void> {
  await db.insertInto('api_keys').values(apiKeyToRow(key, dialect)).execute();
}

export async function findApiKeyByHash({ db }: StoreContext, keyHash: string): Promise<ApiKeyRecord | null> {
  const row = await db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).where('revoked_at', 'is', null).executeTakeFirst();
  return row ? apiKeyFromRow(row) : null;
}
