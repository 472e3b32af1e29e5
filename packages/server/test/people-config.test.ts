import { silentLogger } from '@dossier/core';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { loadPeopleOptions } from '../src/people/config.ts';

/** The sign-in settings of issue 42: SETTINGS rows (docs/configuration.md), read at start like every other setting. */
const optionsOf = (env: NodeJS.ProcessEnv, argv: string[] = []) => loadPeopleOptions(loadConfig(argv, env), silentLogger);

describe('people settings', () => {
  it('defaults to passwords, no mail and no provider, and links that last a week, a day and an hour', () => {
    expect(optionsOf({})).toEqual({ passwordSignIn: true, mailer: null, ssoProviders: [] });
    const config = loadConfig([], {});
    expect([config.invitationTtlSeconds, config.adminResetTtlSeconds, config.emailResetTtlSeconds]).toEqual([7 * 86_400, 86_400, 3600]);
  });

  it('reads providers with their defaults, SMTP, password sign-in off and link lifetimes', () => {
    const options = optionsOf({
      DOSSIER_PASSWORD_SIGNIN: 'OFF',
      DOSSIER_SMTP_URL: 'smtp://127.0.0.1:2525',
      DOSSIER_OIDC_PROVIDERS: JSON.stringify([
        { id: 'corp', issuer: 'https://login.example.com', clientId: 'd', clientSecret: 's', allowedDomains: ['@Example.com'] },
      ]),
    });
    expect(options.passwordSignIn).toBe(false);
    expect(options.mailer).not.toBeNull();
    expect(options.ssoProviders).toEqual([
      {
        id: 'corp',
        name: 'corp',
        issuer: 'https://login.example.com',
        clientId: 'd',
        clientSecret: 's',
        allowedDomains: ['example.com'],
        groupsClaim: 'groups',
        groupRoles: [],
        allowInsecureHttp: false,
      },
    ]);
    const config = loadConfig(['--invitation-ttl', '3d', '--email-reset-ttl=30m'], {
      DOSSIER_ADMIN_RESET_TTL: '12h',
      DOSSIER_SOURCE_FOLDERS: '/srv/a, /srv/b',
    });
    expect([config.invitationTtlSeconds, config.adminResetTtlSeconds, config.emailResetTtlSeconds]).toEqual([3 * 86_400, 12 * 3600, 1800]);
    expect(config.sourceFolders).toEqual(['/srv/a', '/srv/b']);
  });

  it('names the setting and the problem of a bad value, never starting half-configured', () => {
    const bad = (env: NodeJS.ProcessEnv) => () => optionsOf(env);
    expect(bad({ DOSSIER_PASSWORD_SIGNIN: 'maybe' })).toThrow(/DOSSIER_PASSWORD_SIGNIN: expected on or off/);
    expect(bad({ DOSSIER_PASSWORD_SIGNIN: 'off' })).toThrow(/needs DOSSIER_OIDC_PROVIDERS/);
    expect(bad({ DOSSIER_OIDC_PROVIDERS: '{not json' })).toThrow(/DOSSIER_OIDC_PROVIDERS: not valid JSON/);
    expect(bad({ DOSSIER_OIDC_PROVIDERS: '[{"id":"corp","issuer":"nope","clientId":"d","clientSecret":"s"}]' })).toThrow(/DOSSIER_OIDC_PROVIDERS: 0.issuer/);
    const twice = JSON.stringify([1, 2].map(() => ({ id: 'corp', issuer: 'https://a.example.com', clientId: 'd', clientSecret: 's' })));
    expect(bad({ DOSSIER_OIDC_PROVIDERS: twice })).toThrow(/same id/);
    expect(bad({ DOSSIER_SMTP_URL: 'mail.example.com' })).toThrow(/DOSSIER_SMTP_URL: expected smtp/);
    expect(bad({ DOSSIER_INVITATION_TTL: '10s' })).toThrow(/--invitation-ttl \/ DOSSIER_INVITATION_TTL: expected a lifetime/);
    expect(bad({ DOSSIER_SOURCE_FOLDERS: 'relative/path' })).toThrow(/--source-folders \/ DOSSIER_SOURCE_FOLDERS: expected absolute folder paths/);
  });
});
