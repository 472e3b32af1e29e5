import type { Account, Org, OrgMember, Project } from '@dossier/core';
import type { StoreContext } from './dialect.ts';
import { accountFromRow, orgFromRow, projectFromRow } from './rows.ts';

/** The management plane beyond creation (TenancyStore): accounts, orgs, projects and memberships. */

export async function getAccount({ db }: StoreContext, id: string): Promise<Account | null> {
  const row = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? accountFromRow(row) : null;
}

export async function setPasswordHash({ db }: StoreContext, accountId: string, passwordHash: string): Promise<void> {
  await db.updateTable('accounts').set({ password_hash: passwordHash }).where('id', '=', accountId).execute();
}

export async function getTokenEpoch({ db }: StoreContext, accountId: string): Promise<string | null> {
  const row = await db.selectFrom('accounts').select('token_epoch').where('id', '=', accountId).executeTakeFirst();
  return row?.token_epoch ?? null;
}

export async function setTokenEpoch({ db }: StoreContext, accountId: string, at: string): Promise<void> {
  await db.updateTable('accounts').set({ token_epoch: at }).where('id', '=', accountId).execute();
}

export async function getOrg({ db }: StoreContext, id: string): Promise<Org | null> {
  const row = await db.selectFrom('orgs').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? orgFromRow(row) : null;
}

export async function renameOrg(store: StoreContext, id: string, name: string): Promise<Org | null> {
  await store.db.updateTable('orgs').set({ name }).where('id', '=', id).execute();
  return getOrg(store, id);
}

/** Projects, memberships and keys go with the org (foreign keys cascade). */
export async function deleteOrg({ db }: StoreContext, id: string): Promise<void> {
  await db.deleteFrom('orgs').where('id', '=', id).execute();
}

export async function renameProject({ db }: StoreContext, id: string, name: string): Promise<Project | null> {
  await db.updateTable('projects').set({ name }).where('id', '=', id).execute();
  const row = await db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? projectFromRow(row) : null;
}

export async function deleteProject({ db }: StoreContext, id: string): Promise<void> {
  await db.deleteFrom('projects').where('id', '=', id).execute();
}

export async function listMembers({ db }: StoreContext, orgId: string): Promise<OrgMember[]> {
  const rows = await db
    .selectFrom('memberships')
    .innerJoin('accounts', 'accounts.id', 'memberships.account_id')
    .select(['accounts.id as accountId', 'accounts.email as email', 'memberships.role as role'])
    .where('memberships.org_id', '=', orgId)
    .orderBy('accounts.created_at')
    .orderBy('accounts.id')
    .execute();
  return rows.map((row) => ({ accountId: row.accountId, email: row.email, role: row.role }));
}

export async function removeMembership({ db }: StoreContext, orgId: string, accountId: string): Promise<void> {
  await db.deleteFrom('memberships').where('org_id', '=', orgId).where('account_id', '=', accountId).execute();
}
