import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpWebhookSender, refusedAddressReason, refusedUrlReason } from '../src/webhooks/http-sender.ts';

const request = (url: string) => ({ url, body: '{"id":"x"}', headers: { 'Content-Type': 'application/json' } });

let server: Server;
let base = '';
let hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/redirect') res.writeHead(302, { location: '/target' }).end('moved');
    else if (req.url === '/big') res.writeHead(200).end('x'.repeat(1024 * 1024));
    else if (req.url === '/slow')
      return; // never answers (afterAll closes the connection): the sender's timeout ends it
    else res.writeHead(200).end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('address policy', () => {
  const refused: [string, RegExp][] = [
    ['127.0.0.1', /loopback/],
    ['127.8.9.10', /loopback/],
    ['10.1.2.3', /private/],
    ['172.16.0.1', /private/],
    ['192.168.1.1', /private/],
    ['169.254.169.254', /linkLocal/],
    ['100.64.0.1', /carrierGradeNat/],
    ['224.0.0.251', /multicast/],
    ['0.0.0.0', /unspecified/],
    ['255.255.255.255', /broadcast/],
    ['::1', /loopback/],
    ['fc00::1', /uniqueLocal/],
    ['fd12:3456::1', /uniqueLocal/],
    ['fe80::1', /linkLocal/],
    ['ff02::1', /multicast/],
    ['::ffff:127.0.0.1', /loopback/],
    ['::ffff:10.0.0.1', /private/],
    ['::ffff:169.254.169.254', /linkLocal/],
    ['::', /unspecified/],
  ];
  it.each(refused)('refuses %s', (address, why) => {
    expect(refusedAddressReason(address)).toMatch(why);
  });
  it('refuses the IPv4-compatible ::/96 form, which ipaddr.js calls unicast (issue 33)', async () => {
    for (const address of ['::7f00:1', '::a9fe:a9fe', '::a00:1', '::808:808']) expect(refusedAddressReason(address), address).toMatch(/IPv4-compatible/);
    expect(await createHttpWebhookSender().send(request('https://[::127.0.0.1]/hook'))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^Refused: .*IPv4-compatible/),
    });
    expect(refusedAddressReason('::1')).toMatch(/loopback/);
    expect(refusedAddressReason('::')).toMatch(/unspecified/);
  });
  it('says why a URL could never be delivered to, before any attempt, and lets a name that does not resolve yet pass', async () => {
    expect(await refusedUrlReason('https://[::ffff:a9fe:a9fe]/latest')).toMatch(/linkLocal/);
    expect(await refusedUrlReason('https://0x7f.1/hook')).toMatch(/loopback/);
    expect(await refusedUrlReason('http://93.184.216.34/hook')).toMatch(/HTTPS/);
    expect(await refusedUrlReason('https://hooks.example.test/x', { resolve: async () => ['10.0.0.5'] })).toMatch(/private/);
    expect(
      await refusedUrlReason('https://hooks.example.test/x', {
        resolve: async () => {
          throw new Error('ENOTFOUND');
        },
      }),
    ).toBeNull();
    expect(await refusedUrlReason('https://93.184.216.34/hook')).toBeNull();
    expect(await refusedUrlReason(`${base}/hook`, { allowHttpLoopback: true })).toBeNull();
  });
  it('allows public unicast addresses, and loopback only when asked', () => {
    expect(refusedAddressReason('93.184.216.34')).toBeNull();
    expect(refusedAddressReason('2606:2800:220:1::1')).toBeNull();
    expect(refusedAddressReason('127.0.0.1', true)).toBeNull();
    expect(refusedAddressReason('10.0.0.1', true)).toMatch(/private/);
  });
});

describe('HTTP webhook sender', () => {
  it('refuses every blocked class before connecting, for literal and resolved addresses', async () => {
    const sender = createHttpWebhookSender();
    for (const host of ['127.0.0.1', '[::1]', '10.0.0.1', '169.254.169.254', '[::ffff:127.0.0.1]', '[fe80::1]', '[fc00::1]', '100.64.1.1', '224.0.0.1']) {
      const res = await sender.send(request(`https://${host}/hook`));
      expect(res, host).toMatchObject({ ok: false, error: expect.stringMatching(/^Refused/) });
    }
    // A public-looking name that resolves to the metadata address (or to one public and one private address) is refused.
    const resolving = (addresses: string[]) => createHttpWebhookSender({ resolve: async () => addresses });
    expect(await resolving(['169.254.169.254']).send(request('https://hooks.example.test/x'))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/linkLocal/),
    });
    expect(await resolving(['93.184.216.34', '10.0.0.5']).send(request('https://hooks.example.test/x'))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/private/),
    });
    expect(await resolving(['::ffff:7f00:1']).send(request('https://hooks.example.test/x'))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/loopback/),
    });
  });

  it('refuses plain HTTP unless the operator allows it for loopback', async () => {
    expect(await createHttpWebhookSender().send(request(`${base}/hook`))).toMatchObject({ ok: false, error: expect.stringMatching(/HTTPS/) });
    const allowed = createHttpWebhookSender({ allowHttpLoopback: true });
    expect(await allowed.send(request(`${base}/hook`))).toEqual({ ok: true, status: 200, body: 'ok' });
    const toPublic = createHttpWebhookSender({ allowHttpLoopback: true, resolve: async () => ['93.184.216.34'] });
    expect(await toPublic.send(request('http://hooks.example.test/x'))).toMatchObject({ ok: false, error: expect.stringMatching(/loopback/) });
  });

  it('connects to the checked address, not to a second resolution', async () => {
    let lookups = 0;
    const sender = createHttpWebhookSender({ allowHttpLoopback: true, resolve: async () => (lookups++ === 0 ? ['127.0.0.1'] : ['10.9.9.9']) });
    const port = (server.address() as AddressInfo).port;
    expect(await sender.send(request(`http://rebinding.example.test:${port}/hook`))).toEqual({ ok: true, status: 200, body: 'ok' });
    expect(lookups).toBe(1);
  });

  it('never follows redirects, caps the response and times out', async () => {
    hits = [];
    const sender = createHttpWebhookSender({ allowHttpLoopback: true, responseTimeoutMs: 300, maxResponseBytes: 4096 });
    expect(await sender.send(request(`${base}/redirect`))).toEqual({ ok: true, status: 302, body: 'moved' });
    expect(hits).toEqual(['/redirect']);
    const big = await sender.send(request(`${base}/big`));
    expect(big.ok && big.status === 200 && big.body.length <= 4096 + 65536).toBe(true);
    const started = Date.now();
    expect(await sender.send(request(`${base}/slow`))).toMatchObject({ ok: false, error: expect.stringMatching(/within 300 ms|Timed out/) });
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
