import { silentLogger } from '@dossier/core';
import { describe, expect, it } from 'vitest';
import { loadPeopleOptions } from '../src/people/config.ts';

/** The sign-in settings of issue 42, read from the environment at start (docs/members.md). */
describe('people settings', () => {
  it('defaults to passwords, no mail and no provider', () => {
    expect(loadPeopleOptions({}, silentLogger)).toEqual({ passwordSignIn: true, mailer: null, ssoProviders: [] });
  });

  it('reads providers with their defaults, SMTP and password sign-in off', () => {
    const options = loadPeopleOptions({
      DOSSIER_PASSWORD_SIGNIN: 'OFF', DOSSIER_SMTP_URL: 'smtp://127.0.0.1:2525',
      DOSSIER_OIDC_PROVIDERS: JSON.stringify([{ id: 'corp', issuer: 'https://login.example.com', clientId: 'd', clientSecret: 's', allowedDomains: ['@Example.com'] }]),
    }, silentLogger);
    expect(options.passwordSignIn).toBe(false);
    expect(options.mailer).not.toBeNull();
    expect(options.ssoProviders).toEqual([{
      id: 'corp', name: 'corp', issuer: 'https://login.example.com', clientId: 'd', clientSecret: 's', allowedDomains: ['example.com'], groupsClaim: 'groups', groupRoles: [], allowInsecureHttp: false,
    }]);
  });

  it('names the setting and the problem of a bad value, never starting half-configured', () => {
    const bad = (env: NodeJS.ProcessEnv) => () => loadPeopleOptions(env, silentLogger);
    expect(bad({ DOSSIER_PASSWORD_SIGNIN: 'maybe' })).toThrow(/DOSSIER_PASSWORD_SIGNIN: expected on or off/);
    expect(bad({ DOSSIER_PASSWORD_SIGNIN: 'off' })).toThrow(/needs DOSSIER_OIDC_PROVIDERS/);
    expect(bad({ DOSSIER_OIDC_PROVIDERS: '{not json' })).toThrow(/DOSSIER_OIDC_PROVIDERS: not valid JSON/);
    expect(bad({ DOSSIER_OIDC_PROVIDERS: '[{"id":"corp","issuer":"nope","clientId":"d","clientSecret":"s"}]' })).toThrow(/DOSSIER_OIDC_PROVIDERS: 0.issuer/);
    const twice = JSON.stringify([1, 2].map(() => ({ id: 'corp', issuer: 'https://a.example.com', clientId: 'd', clientSecret: 's' })));
    expect(bad({ DOSSIER_OIDC_PROVIDERS: twice })).toThrow(/same id/);
    expect(bad({ DOSSIER_SMTP_URL: 'mail.example.com' })).toThrow(/DOSSIER_SMTP_URL: expected smtp/);
  });
});
