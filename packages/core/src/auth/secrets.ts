import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { DossierError } from '../domain/errors.ts';

/** Encrypts secrets at the application layer with AES-256-GCM under a 32-byte master key. */
export interface SecretBox {
  /** Ciphertext as `v1:<iv>:<tag>:<data>` (base64url parts). */
  encrypt(plaintext: string): string;
  /** Plaintext of a value produced by encrypt; throws when tampered or under another key. */
  decrypt(sealed: string): string;
  /** A 32-byte key derived from the master key for another purpose (e.g. JWT signing). */
  deriveKey(purpose: string): Uint8Array;
}

/** A SecretBox over a 32-byte master key. */
export function createSecretBox(masterKey: Uint8Array): SecretBox {
  if (masterKey.length !== 32) throw new DossierError('invalid_input', 'The master key must be 32 bytes');
  const key = Buffer.from(masterKey);
  return {
    encrypt(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', iv, cipher.getAuthTag(), data].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join(':');
    },
    decrypt(sealed) {
      const [version, iv, tag, data] = sealed.split(':');
      if (version !== 'v1' || !iv || !tag || data === undefined) throw new DossierError('internal', 'Malformed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
    deriveKey(purpose) {
      return new Uint8Array(hkdfSync('sha256', key, Buffer.alloc(0), `dossier:${purpose}`, 32));
    },
  };
}

/** sha256 hex of a secret, for lookups that must not need the plaintext. */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** `abcd…wxyz`: the first and last four characters, the only form of a secret ever shown again. */
export const previewSecret = (secret: string): string => (secret.length <= 8 ? '…' : `${secret.slice(0, 4)}…${secret.slice(-4)}`);
