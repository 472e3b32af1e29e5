import { DossierError } from '../domain/errors.ts';

/** Passwords people pick most often (a short list: the length rule already rules out most of the rest). */
const COMMON = new Set([
  'password1234',
  'password12345',
  'password123456',
  '123456789012',
  '1234567890123',
  'qwertyuiop12',
  'qwertyuiop123',
  'iloveyou1234',
  'administrator',
  'letmein12345',
  'welcome12345',
  'changeme1234',
  'passw0rd1234',
  'correcthorsebatterystaple',
  'aaaaaaaaaaaa',
]);

/**
 * The strength check of every password a person sets (invitation, reset, change): 12 characters or more, at least 5
 * different characters, not a well-known password, and not the e-mail or its name part.
 */
export function checkPasswordStrength(password: string, email: string): void {
  const lower = password.toLowerCase();
  const name = email.toLowerCase().split('@')[0] ?? '';
  const problem =
    password.length < 12
      ? 'must be at least 12 characters'
      : password.length > 1024
        ? 'must be at most 1024 characters'
        : new Set(password).size < 5
          ? 'needs at least 5 different characters'
          : COMMON.has(lower)
            ? 'is a well-known password'
            : lower === email.toLowerCase() || (name.length >= 4 && lower.includes(name))
              ? 'must not contain your e-mail'
              : null;
  if (problem) throw new DossierError('invalid_input', `password: ${problem}`);
}
