import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smtpMailer } from '../src/people/mailer.ts';
import { DEFAULT_PEOPLE_OPTIONS } from '../src/people/config.ts';
import { startTestServer, type TestServer } from './helpers.ts';
import { silentLogger } from '@dossier/core';

/**
 * Links by e-mail (issue 42) against a real SMTP server on 127.0.0.1 (the smtp-server package) that captures what it
 * receives, and the throttles of the endpoints that take links and send mail.
 */

interface Captured {
  to: string[];
  data: string;
}

let smtp: SMTPServer;
let t: TestServer;
const inbox: Captured[] = [];

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        inbox.push({ to: session.envelope.rcptTo.map((r) => r.address), data: Buffer.concat(chunks).toString('utf8') });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as AddressInfo).port;
  t = await startTestServer({
    config: {
      workers: 0,
      authFailureLimitAddress: { points: 6, durationMs: 60_000, burst: 0 },
      loginLimitAccount: { points: 3, durationMs: 60_000, burst: 0 },
    },
    people: { ...DEFAULT_PEOPLE_OPTIONS, mailer: smtpMailer(`smtp://127.0.0.1:${port}`, 'Dossier <dossier@example.test>', silentLogger) },
  });
});
afterAll(async () => {
  await t?.close();
  await new Promise<void>((resolve) => smtp?.close(() => resolve()));
});

/** The link in a captured message (quoted-printable soft breaks undone). */
const linkIn = (message: Captured): string => /https?:\/\/\S+\?token=[\w-]+/.exec(message.data.replace(/=\r?\n/g, '').replace(/=3D/g, '='))![0];

describe('links by e-mail', () => {
  it('e-mails the invitation link it also answers, and the link works', async () => {
    const admin = (await t.request('POST', '/v1/auth/login', { auth: null, json: { email: t.email, password: t.password } })).body.token;
    const created = await t.request('POST', `/v1/orgs/${t.orgId}/invitations`, { auth: admin, json: { email: 'ines@example.test' } });
    expect(created.body.emailed).toBe(true);
    const message = inbox.find((m) => m.to.includes('ines@example.test'))!;
    expect(message.data).toContain('Subject: Join Default org on Dossier');
    expect(linkIn(message)).toBe(created.body.url);
    const accepted = await t.request('POST', '/v1/invitations/accept', {
      auth: null,
      json: { token: new URL(created.body.url).searchParams.get('token'), password: 'senI long passphrase' },
    });
    expect(accepted.status).toBe(200);
    const quiet = await t.request('POST', `/v1/orgs/${t.orgId}/invitations`, { auth: admin, json: { email: 'quiet@example.test', sendEmail: false } });
    expect(quiet.body.emailed).toBe(false);
    expect(inbox.some((m) => m.to.includes('quiet@example.test'))).toBe(false);
  });

  it('mails a reset link to a known e-mail only, answering both the same; the link sets the password', async () => {
    const before = inbox.length;
    const known = await t.request('POST', '/v1/auth/password-reset/request', { auth: null, json: { email: t.email } });
    const unknown = await t.request('POST', '/v1/auth/password-reset/request', { auth: null, json: { email: 'nobody@example.test' } });
    expect([unknown.status, unknown.body]).toEqual([known.status, known.body]);
    expect(inbox.slice(before).map((m) => m.to)).toEqual([[t.email]]);
    const token = new URL(linkIn(inbox.at(-1)!)).searchParams.get('token');
    expect((await t.request('POST', '/v1/auth/password-reset', { auth: null, json: { token, newPassword: 'a brand new admin passphrase' } })).status).toBe(204);
    expect((await t.request('POST', '/v1/auth/login', { auth: null, json: { email: t.email, password: 'a brand new admin passphrase' } })).status).toBe(200);
  });
});

describe('throttles', () => {
  it('limits reset requests per e-mail, and refused link attempts per address, with 429 and Retry-After', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await t.request('POST', '/v1/auth/password-reset/request', { auth: null, json: { email: 'flood@example.test' } })).status);
    expect(statuses).toEqual([202, 202, 202, 429]);
    const guesses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await t.request('POST', '/v1/invitations/accept', {
        auth: null,
        json: { token: `guess-${i}-${'x'.repeat(30)}`, password: 'whatever long passphrase' },
      });
      guesses.push(res.status);
      if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(guesses.slice(-1)).toEqual([429]);
    expect(guesses.filter((s) => s === 404).length).toBeLessThanOrEqual(6);
  });
});
