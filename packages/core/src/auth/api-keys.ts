import { randomBytes } from 'node:crypto';
import type { Env } from '../domain/types.ts';

/** Every Dossier API key starts with `dsk_live_` or `dsk_test_`, so a key tells its sandbox at a glance. */
export const API_KEY_PREFIX = 'dsk_';

/** A fresh random API key for an environment. */
export const generateApiKey = (env: Env): string => `${API_KEY_PREFIX}${env}_${randomBytes(24).toString('base64url')}`;

/** Org-scoped keys (`dsk_org_…`) invoke the org's hosted agents; they open no project's data. */
export const ORG_KEY_PREFIX = `${API_KEY_PREFIX}org_`;

/** A fresh random org-scoped key. */
export const generateOrgApiKey = (): string => `${ORG_KEY_PREFIX}${randomBytes(24).toString('base64url')}`;

/** Whether a string is shaped like an org-scoped key. */
export const isOrgApiKey = (key: string): boolean => /^dsk_org_[A-Za-z0-9_-]{20,}$/.test(key);

/** The environment a key's prefix names, or null when the string is not shaped like a Dossier key. */
export function envOfApiKey(key: string): Env | null {
  const m = /^dsk_(live|test)_[A-Za-z0-9_-]{20,}$/.exec(key);
  return m ? (m[1] as Env) : null;
}
