import { createHmac, timingSafeEqual } from 'node:crypto';
import { DossierError } from '../domain/errors.ts';
import { isUuid } from '../util/ids.ts';

/** Presigned upload URLs are valid for 15 minutes (spec: Limits). */
export const UPLOAD_URL_TTL_MS = 15 * 60 * 1000;

/** Signs and checks the opaque token inside a presigned upload URL: `<documentId>.<expiry>.<mac>`. */
export function uploadTokens(key: Uint8Array) {
  const mac = (body: string): string => createHmac('sha256', key).update(body).digest('base64url');
  return {
    sign(documentId: string, now = Date.now()): string {
      const body = `${documentId}.${now + UPLOAD_URL_TTL_MS}`;
      return `${body}.${mac(body)}`;
    },
    /**
     * The document id of a valid, unexpired token; throws unauthorized (bad signature, or not exactly
     * `<uuid>.<digits>.<mac>`: extra segments are refused) or forbidden (expired).
     */
    verify(token: string, now = Date.now()): string {
      const parts = token.split('.');
      const [id = '', exp = '', sig = ''] = parts;
      const expected = mac(`${id}.${exp}`);
      const wellFormed = parts.length === 3 && isUuid(id) && /^\d{1,15}$/.test(exp);
      if (!wellFormed || sig.length !== expected.length || !timingSafeEqual(Buffer.from(sig), Buffer.from(expected))) {
        throw new DossierError('unauthorized', 'Invalid upload URL');
      }
      if (Number(exp) < now) throw new DossierError('forbidden', 'The upload URL has expired; request a new one');
      return id;
    },
  };
}
