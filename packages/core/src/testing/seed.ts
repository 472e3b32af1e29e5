import { randomUUID } from 'node:crypto';
import type { MetadataStore } from '../ports/metadata-store.ts';

/** An account that is admin of a new org with one new project, all created at `createdAt`; returns the project id. */
export async function seedProject(store: MetadataStore, createdAt: string): Promise<string> {
  const accountId = randomUUID();
  const orgId = randomUUID();
  const projectId = randomUUID();
  await store.createAccount({ id: accountId, email: `${accountId}@example.com`, passwordHash: 'hash', createdAt });
  await store.createOrg({ id: orgId, name: 'Org', createdAt }, accountId, 'admin');
  await store.createProject({ id: projectId, orgId, name: 'Project', createdAt });
  return projectId;
}
