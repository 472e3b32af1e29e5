import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, startTestServer, type TestServer } from './helpers.ts';

/**
 * Issue 33, finding 6c: webhook URLs that can never be delivered to (loopback, private, link-local, the metadata
 * address, the IPv4-compatible ::/96 form and IPv4-mapped forms) were accepted, then retried for hours. They are a
 * 400 at creation and on update, by the same checks as every delivery attempt.
 */

const UNDELIVERABLE: [string, RegExp][] = [
  ['https://127.0.0.1/hook', /loopback/],
  ['https://localhost/hook', /loopback/],
  ['https://0x7f.1/hook', /loopback/],
  ['https://[::1]/hook', /loopback/],
  ['https://10.0.0.5/hook', /private/],
  ['https://192.168.1.20/hook', /private/],
  ['https://172.16.3.4/hook', /private/],
  ['https://169.254.169.254/latest/meta-data', /linkLocal/],
  ['https://[fe80::1]/hook', /linkLocal/],
  ['https://[fd00:ec2::254]/hook', /uniqueLocal/],
  ['https://100.64.0.1/hook', /carrierGradeNat/],
  ['https://[::127.0.0.1]/hook', /IPv4-compatible/],
  ['https://[::a9fe:a9fe]/hook', /IPv4-compatible/],
  ['https://[::ffff:127.0.0.1]/hook', /loopback/],
  ['https://[::ffff:a9fe:a9fe]/hook', /linkLocal/],
  ['https://0.0.0.0/hook', /unspecified/],
];

let t: TestServer;
const base = () => `/v1/orgs/${t.orgId}/projects/${t.projectId}/webhooks`;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

describe('webhook URLs that can never be delivered to', () => {
  it.each(UNDELIVERABLE)('refuses %s at creation with 400', async (url, why) => {
    const res = await t.request('POST', base(), { json: { url } });
    expectError(res, 400, /url: webhooks can never be delivered there/);
    expect(res.body.error).toMatch(why);
  });

  it('refuses them on update too, leaving the endpoint as it was', async () => {
    const created = await t.request('POST', base(), { json: { url: 'https://93.184.216.34/hook' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    for (const [url, why] of UNDELIVERABLE) {
      const res = await t.request('PATCH', `${base()}/${created.body.id}`, { json: { url } });
      expectError(res, 400, why);
    }
    const [endpoint] = (await t.request('GET', base())).body;
    expect(endpoint.url).toBe('https://93.184.216.34/hook');
    expect((await t.request('GET', base())).body).toHaveLength(1);
  });
});
