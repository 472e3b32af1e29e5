import { DossierError } from '../domain/errors.ts';

/** Claims of a management-plane token. */
export interface SessionClaims {
  accountId: string;
  email: string;
  /** The account's token epoch when the token was issued (issue 9: a new epoch revokes older tokens). */
  epoch?: string | null;
  /** The session the token belongs to (issue 42: checked on every request, so ending it ends the token at once). */
  sessionId?: string | null;
  /** When the token lapses, in seconds since the epoch (set on verified tokens; issuing ignores it). */
  expiresAt?: number;
}

/** jose, loaded on the first token issued or checked (an embedded library that only searches never loads it). */
const jose = () => import('jose');

/** Issues and verifies short-lived HS256 JWTs for the management plane. */
export function createTokenIssuer(key: Uint8Array, ttlSeconds: number) {
  return {
    /** A signed token for the account. */
    async issue(claims: SessionClaims): Promise<string> {
      const { SignJWT } = await jose();
      return new SignJWT({ email: claims.email, ...(claims.epoch ? { ep: claims.epoch } : {}), ...(claims.sessionId ? { sid: claims.sessionId } : {}) })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(claims.accountId)
        .setIssuer('dossier')
        .setIssuedAt()
        .setExpirationTime(`${ttlSeconds}s`)
        .sign(key);
    },
    /** The claims of a valid token; throws unauthorized for an invalid or expired one. */
    async verify(token: string): Promise<SessionClaims> {
      const { jwtVerify } = await jose();
      try {
        // A token without an expiry would never lapse: `exp` (and `iat`) are required, whatever else the signature says.
        const { payload } = await jwtVerify(token, key, { issuer: 'dossier', algorithms: ['HS256'], requiredClaims: ['exp', 'iat', 'sub'] });
        if (typeof payload.sub !== 'string' || typeof payload.email !== 'string') throw new Error('claims');
        const sessionId = typeof payload.sid === 'string' ? payload.sid : null;
        return { accountId: payload.sub, email: payload.email, epoch: typeof payload.ep === 'string' ? payload.ep : null, sessionId, expiresAt: payload.exp };
      } catch {
        throw new DossierError('unauthorized', 'Invalid or expired token');
      }
    },
  };
}

export type TokenIssuer = ReturnType<typeof createTokenIssuer>;
