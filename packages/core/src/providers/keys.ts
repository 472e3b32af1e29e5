import type { ProviderKeyStore } from '../ports/provider-key-store.ts';
import { type Access, requireAccess } from '../access.ts';
import { previewSecret } from '../auth/secrets.ts';
import type { ContextPart } from '../context.ts';
import { notFound } from '../domain/errors.ts';
import type { ProviderKeyRecord } from '../domain/types.ts';
import { type CreateProviderKeyInput, createProviderKeySchema, parseInput } from '../schemas.ts';
import { isUuid, newId, nowIso } from '../util/ids.ts';
import { keyedProvider, specProvider } from './names.ts';
import type { ProviderKeyService } from '../api/provider-keys.ts';
import type { z } from 'zod';
import type * as responses from '../responses.ts';

/** A provider key as the API shows it (spec: ProviderKey): a preview, never the key. */
export type ProviderKeyView = z.output<typeof responses.providerKey>;

export const providerKeyView = (k: ProviderKeyRecord): ProviderKeyView => ({
  id: k.id,
  provider: specProvider(k.provider),
  name: k.name,
  keyPreview: k.keyPreview,
  createdAt: k.createdAt,
});

/** The project id when the caller's API key belongs to it; another project's id is not_found, as for any resource. */
function requireOwnSandbox(access: Access, projectId: string): NonNullable<Access> {
  const own = requireAccess(access);
  if (own.projectId !== projectId) throw notFound('Project');
  return own;
}

/**
 * A project's own provider keys (spec: Provider keys). Keys are sealed with the SecretBox (AES-256-GCM) before
 * they reach the store; only `keyPreview` is ever returned. The research resolver prefers them to managed keys.
 */
export function providerKeyService(ctx: ContextPart<'secrets', ProviderKeyStore>): ProviderKeyService {
  return {
    async create(access: Access, projectId: string, raw: CreateProviderKeyInput): Promise<ProviderKeyView> {
      const sandbox = requireOwnSandbox(access, projectId);
      const input = parseInput(createProviderKeySchema, raw);
      const record: ProviderKeyRecord = {
        id: newId(),
        projectId: sandbox.projectId,
        env: sandbox.env,
        provider: keyedProvider(input.provider),
        name: input.name,
        keyEncrypted: ctx.secrets.encrypt(input.key),
        keyPreview: previewSecret(input.key),
        createdAt: nowIso(),
      };
      await ctx.store.createProviderKey(record);
      return providerKeyView(record);
    },

    async list(access: Access, projectId: string): Promise<ProviderKeyView[]> {
      const sandbox = requireOwnSandbox(access, projectId);
      return (await ctx.store.listProviderKeys(sandbox.projectId, sandbox.env)).map(providerKeyView);
    },

    async delete(access: Access, projectId: string, keyId: string): Promise<void> {
      const sandbox = requireOwnSandbox(access, projectId);
      const key = isUuid(keyId) ? await ctx.store.getProviderKey(keyId) : null;
      // A key of the other sandbox is as unknown as another project's (a test key never touches live keys).
      if (!key || key.projectId !== sandbox.projectId || key.env !== sandbox.env) throw notFound('Provider key');
      await ctx.store.deleteProviderKey(key.id);
    },
  };
}

export type { ProviderKeyService };
