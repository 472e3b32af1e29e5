import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new signing secret: 32 random bytes as 64 hex characters. */
export const newSigningSecret = (): string => randomBytes(32).toString('hex');

/** The X-Service-Signature value of a raw body: `sha256=<hex HMAC-SHA256 keyed with the secret>`. */
export const signBody = (secret: string, body: string | Uint8Array): string => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** True when `signature` is the signature of `body` under `secret` (constant-time comparison). */
export function verifySignature(secret: string, body: string | Uint8Array, signature: string): boolean {
  const expected = Buffer.from(signBody(secret, body));
  const given = Buffer.from(signature.trim());
  return expected.length === given.length && timingSafeEqual(expected, given);
}
