import type { OAuthStore } from '../ports/oauth-store.ts';
import { timingSafeEqual } from 'node:crypto';
import { hashSecret } from '../auth/secrets.ts';
import type { ContextPart } from '../context.ts';
import type { OAuthClientRecord } from '../ports/oauth-store.ts';
import { isUuid, newId } from '../util/ids.ts';
import { OAuthError } from './errors.ts';
import { clientRegistrationSchema, parseOAuthInput, redirectUriProblem } from './schemas.ts';
import { newOAuthSecret } from './secrets.ts';

/** What a registration answers (RFC 7591 §3.2.1): the metadata as registered, the id, and a secret when confidential. */
export type ClientInformation = Record<string, unknown> & { client_id: string; client_id_issued_at: number; client_secret?: string };

/** How the caller of the token or revocation endpoint presented itself. */
export interface ClientCredentials {
  /** From `Authorization: Basic …` (client_secret_basic), when sent. */
  basic: { clientId: string; secret: string } | null;
  /** From the form body (client_secret_post, or a public client's client_id). */
  clientId?: string;
  clientSecret?: string;
}

const epochSeconds = (iso: string): number => Math.floor(Date.parse(iso) / 1000);

/** The answer of a registration, rebuilt from the stored record (the secret is only in the first answer). */
export function clientInformation(client: OAuthClientRecord, secret?: string): ClientInformation {
  return {
    ...client.metadata,
    client_id: client.id,
    client_id_issued_at: epochSeconds(client.createdAt),
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
  };
}

/** Register a client (RFC 7591): its redirect URIs are checked once here and matched exactly later. */
export async function registerClient(store: OAuthStore, raw: unknown, now: string): Promise<ClientInformation> {
  const input = parseOAuthInput(clientRegistrationSchema, raw, 'invalid_client_metadata');
  for (const uri of input.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', problem);
  }
  const secret = input.token_endpoint_auth_method === 'none' ? undefined : newOAuthSecret('clientSecret');
  const client: OAuthClientRecord = {
    id: newId(),
    name: input.client_name ?? null,
    redirectUris: input.redirect_uris,
    authMethod: input.token_endpoint_auth_method,
    secretHash: secret ? hashSecret(secret) : null,
    metadata: input,
    createdAt: now,
  };
  await store.createOAuthClient(client);
  return clientInformation(client, secret);
}

/** A registered client by id; `invalid_client` (401) when unknown. */
export async function requireClient(store: OAuthStore, clientId: string | undefined): Promise<OAuthClientRecord> {
  const client = clientId && isUuid(clientId) ? await store.getOAuthClient(clientId) : null;
  if (!client) throw new OAuthError('invalid_client', 'Unknown client_id: register the client first (POST /oauth/register)');
  return client;
}

const sameHash = (secret: string, hash: string): boolean => timingSafeEqual(Buffer.from(hashSecret(secret)), Buffer.from(hash));

/**
 * The client calling the token or revocation endpoint, authenticated by the method it registered: a public client
 * names itself, a confidential one proves its secret (in the Basic header or the form, as registered).
 */
export async function authenticateClient(ctx: ContextPart<never, OAuthStore>, credentials: ClientCredentials): Promise<OAuthClientRecord> {
  const client = await requireClient(ctx.store, credentials.basic?.clientId ?? credentials.clientId);
  if (client.authMethod === 'none') return client;
  const secret = client.authMethod === 'client_secret_basic' ? credentials.basic?.secret : credentials.clientSecret;
  if (!secret || !client.secretHash || !sameHash(secret, client.secretHash)) {
    throw new OAuthError('invalid_client', `Client authentication failed: this client authenticates with ${client.authMethod}`);
  }
  return client;
}
