import type { CollectionStore } from '../ports/collection-store.ts';
import type { TenancyStore } from '../ports/tenancy-store.ts';
import type { AccountStore } from '../ports/account-store.ts';
import type { PeopleStore } from '../ports/people-store.ts';
import type { OAuthStore } from '../ports/oauth-store.ts';
import type { ContextPart } from '../context.ts';
import { DossierError, notFound } from '../domain/errors.ts';
import { ENVS, type Org, type Project } from '../domain/types.ts';
import type { OrgMember } from '../ports/tenancy-store.ts';
import { changePasswordSchema, memberSchema, nameSchema, parseInput } from '../schemas.ts';
import { isUuid, newId, nowIso } from '../util/ids.ts';
import type { SessionClaims } from './jwt.ts';
import { checkPasswordStrength } from '../people/password-policy.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { type OrgRole, requireOrgRole, requireProjectRole } from './roles.ts';
import type { AuthService } from './service.ts';
import type { OrgService } from '../api/orgs.ts';
import type { z } from 'zod';
import type * as responses from '../responses.ts';

/** A new project with its two keys, shown once. */
export type CreatedProject = z.output<typeof responses.createdProject>;

/**
 * The management plane (issue 9): orgs and projects created, renamed and deleted by their admins, members added
 * with a role, passwords changed and every token of an account revoked. Deleting refuses (409) while data exists,
 * so nothing in the vector index or file store is orphaned.
 */
export function orgService(ctx: ContextPart<never, CollectionStore & TenancyStore & AccountStore & PeopleStore & OAuthStore>, auth: AuthService): OrgService {
  async function hasCollections(projectId: string): Promise<boolean> {
    for (const env of ENVS) {
      if ((await ctx.store.listCollections(projectId, env)).some((c) => !c.deletedAt)) return true;
    }
    return false;
  }

  async function adminCount(orgId: string): Promise<number> {
    return (await ctx.store.listMembers(orgId)).filter((m) => m.role === 'admin').length;
  }

  /**
   * A removed member's access ends at once (issue 42): the org's routes check the membership on every request, the
   * OAuth connections the person granted to the org's projects are revoked, and when no org is left, every session
   * and token of the account ends too (a new epoch). Their sessions in other orgs go on: another org's admin ends those.
   */
  async function endAccessOfRemoved(orgId: string, accountId: string): Promise<void> {
    if ((await ctx.store.listOrgsForAccount(accountId)).length === 0) {
      await ctx.store.setTokenEpoch(accountId, newId());
      await ctx.store.revokeAllSessions(accountId, nowIso());
    }
    for (const project of await ctx.store.listProjects(orgId)) {
      for (const grant of await ctx.store.listOAuthGrants(project.id, nowIso())) {
        if (grant.accountId === accountId) await ctx.store.revokeOAuthGrant(grant.id, nowIso());
      }
    }
  }

  return {
    /**
     * The caller's role in the org (issue 33: the server's role gate asks it for every JWT caller of a route with an
     * org in its path); 404 when the caller is not a member, so other orgs' ids reveal nothing.
     */
    async roleIn(claims: SessionClaims, orgId: string): Promise<OrgRole> {
      return requireOrgRole(ctx.store, claims, orgId, 'member');
    },
    /** A new org; its creator is its admin. */
    async createOrg(claims: SessionClaims, raw: unknown): Promise<Org> {
      const { name } = parseInput(nameSchema, raw);
      const org: Org = { id: newId(), name, createdAt: nowIso() };
      await ctx.store.createOrg(org, claims.accountId, 'admin');
      return org;
    },
    async renameOrg(claims: SessionClaims, orgId: string, raw: unknown): Promise<Org> {
      const { name } = parseInput(nameSchema, raw);
      await requireOrgRole(ctx.store, claims, orgId, 'admin', 'Renaming the org');
      const org = await ctx.store.renameOrg(orgId, name);
      if (!org) throw notFound('Org');
      return org;
    },
    async deleteOrg(claims: SessionClaims, orgId: string): Promise<void> {
      await requireOrgRole(ctx.store, claims, orgId, 'admin', 'Deleting the org');
      for (const project of await ctx.store.listProjects(orgId)) {
        if (await hasCollections(project.id)) throw new DossierError('conflict', `Project ${project.name} still has collections: delete them first`);
      }
      await ctx.store.deleteOrg(orgId);
    },
    /** A new project of the org with its live and test keys (in this answer only). */
    async createProject(claims: SessionClaims, orgId: string, raw: unknown): Promise<CreatedProject> {
      const { name } = parseInput(nameSchema, raw);
      await requireOrgRole(ctx.store, claims, orgId, 'admin', 'Creating projects');
      const project: Project = { id: newId(), orgId, name, createdAt: nowIso() };
      await ctx.store.createProject(project);
      return { project, liveKey: await auth.createKey(project.id, 'live'), testKey: await auth.createKey(project.id, 'test') };
    },
    async renameProject(claims: SessionClaims, path: { orgId: string; projectId: string }, raw: unknown): Promise<Project> {
      const { name } = parseInput(nameSchema, raw);
      const project = await requireProjectRole(ctx, claims, path, 'admin', 'Renaming projects');
      const renamed = await ctx.store.renameProject(project.id, name);
      if (!renamed) throw notFound('Project');
      return renamed;
    },
    async deleteProject(claims: SessionClaims, path: { orgId: string; projectId: string }): Promise<void> {
      const project = await requireProjectRole(ctx, claims, path, 'admin', 'Deleting projects');
      if (await hasCollections(project.id)) throw new DossierError('conflict', 'The project still has collections: delete them first');
      await ctx.store.deleteProject(project.id);
    },
    async listMembers(claims: SessionClaims, orgId: string): Promise<OrgMember[]> {
      await requireOrgRole(ctx.store, claims, orgId, 'member');
      return ctx.store.listMembers(orgId);
    },
    /** Add an existing account to the org with a role, or change its role (the last admin cannot be demoted). */
    async putMember(claims: SessionClaims, orgId: string, raw: unknown): Promise<OrgMember> {
      const { email, role } = parseInput(memberSchema, raw);
      await requireOrgRole(ctx.store, claims, orgId, 'admin', 'Managing members');
      const account = await ctx.store.findAccountByEmail(email);
      if (!account) throw notFound('Account (the person must have an account on this server)');
      const current = await ctx.store.getMembershipRole(orgId, account.id);
      if (current === 'admin' && role !== 'admin' && (await adminCount(orgId)) === 1) throw new DossierError('conflict', 'The org needs at least one admin');
      await ctx.store.setMembership(orgId, account.id, role);
      return { accountId: account.id, email: account.email, role };
    },
    async removeMember(claims: SessionClaims, orgId: string, accountId: string): Promise<void> {
      await requireOrgRole(ctx.store, claims, orgId, 'admin', 'Managing members');
      const role = isUuid(accountId) ? await ctx.store.getMembershipRole(orgId, accountId) : null;
      if (!role) throw notFound('Member');
      if (role === 'admin' && (await adminCount(orgId)) === 1) throw new DossierError('conflict', 'The org needs at least one admin');
      await ctx.store.removeMembership(orgId, accountId);
      await endAccessOfRemoved(orgId, accountId);
    },
    /** Change the caller's password; every token issued before (this one too) stops working. */
    async changePassword(claims: SessionClaims, raw: unknown): Promise<void> {
      const { currentPassword, newPassword } = parseInput(changePasswordSchema, raw);
      const account = await ctx.store.getAccount(claims.accountId);
      if (!account || !(await verifyPassword(currentPassword, account.passwordHash))) throw new DossierError('unauthorized', 'The current password is wrong');
      checkPasswordStrength(newPassword, account.email);
      await ctx.store.setPasswordHash(account.id, await hashPassword(newPassword));
      await ctx.store.setTokenEpoch(account.id, newId());
      await ctx.store.revokeAllSessions(account.id, nowIso());
    },
    /** Revoke every token of the caller's account (log out everywhere). */
    async revokeTokens(claims: SessionClaims): Promise<void> {
      await ctx.store.setTokenEpoch(claims.accountId, newId());
      await ctx.store.revokeAllSessions(claims.accountId, nowIso());
    },
  };
}

export type { OrgService };
