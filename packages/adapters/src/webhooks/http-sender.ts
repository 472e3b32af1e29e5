import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { WebhookRequest, WebhookResponse, WebhookSender } from '@dossier/core';
import ipaddr from 'ipaddr.js';

export interface HttpWebhookSenderOptions {
  /** Allow plain-HTTP receivers on loopback addresses (local development and tests). Default false. */
  allowHttpLoopback?: boolean;
  /** Time to connect (TLS included) (default 5 s). */
  connectTimeoutMs?: number;
  /** Time from sending the request to the end of the response (default 10 s). */
  responseTimeoutMs?: number;
  /** Response bytes read before the connection is dropped (default 64 KiB); only the first 1,024 are stored. */
  maxResponseBytes?: number;
  /** Name resolution (default: the system resolver, every address); tests point names at given addresses. */
  resolve?: (hostname: string) => Promise<string[]>;
  /** Extra CA certificates to trust (tests with a self-signed receiver). */
  ca?: string | Buffer;
}

/**
 * ::/96 but :: and ::1: the deprecated IPv4-compatible form (`::7f00:1` is how a URL writes `[::127.0.0.1]`), which
 * ipaddr.js calls unicast and some stacks route to the IPv4 address inside it.
 */
function ipv4Compatible(address: string): boolean {
  const parsed = ipaddr.parse(address);
  if (parsed.kind() !== 'ipv6') return false;
  const parts = (parsed as ipaddr.IPv6).parts;
  return parts.slice(0, 6).every((part) => part === 0) && !(parts[6] === 0 && (parts[7] ?? 0) <= 1);
}

/** Why an address may not receive webhooks, or null when it may: only public unicast addresses may. */
export function refusedAddressReason(address: string, allowLoopback = false): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  if (ipv4Compatible(address)) return `${address} is an IPv4-compatible (::/96) address`;
  const range = ipaddr.process(address).range();
  if (range === 'unicast') return null;
  if (range === 'loopback' && allowLoopback) return null;
  return `${address} is a ${range} address`;
}

const systemResolve = async (hostname: string): Promise<string[]> => (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/** The addresses of the URL's host: itself when it is an IP address, else what the name resolves to. */
async function hostAddresses(url: URL, opts: HttpWebhookSenderOptions): Promise<string[]> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return ipaddr.isValid(host) ? [host] : await (opts.resolve ?? systemResolve)(host);
}

/** Why the URL's scheme may not be used, or null (HTTPS; plain HTTP only when the operator allows it, to loopback). */
const refusedScheme = (url: URL, opts: HttpWebhookSenderOptions): string | null =>
  url.protocol === 'https:' || (url.protocol === 'http:' && opts.allowHttpLoopback) ? null : 'only HTTPS URLs receive webhooks';

/** Why one address of the URL's host may not be connected to, or null. */
function refusedFor(url: URL, address: string): string | null {
  const loopbackHttp = url.protocol === 'http:';
  const reason = refusedAddressReason(address, loopbackHttp);
  if (reason) return reason;
  if (loopbackHttp && ipaddr.process(address).range() !== 'loopback') return 'plain HTTP is only allowed to loopback';
  return null;
}

/** The one address to connect to: every address the name resolves to must be allowed. */
async function checkedAddress(url: URL, opts: HttpWebhookSenderOptions): Promise<string> {
  const addresses = await hostAddresses(url, opts);
  if (addresses.length === 0) throw new Error(`${url.hostname} did not resolve`);
  for (const address of addresses) {
    const reason = refusedFor(url, address);
    if (reason) throw new Error(`Refused: ${reason}`);
  }
  return addresses[0]!;
}

/** How long a URL's name may take to resolve when an endpoint is saved; past it the URL is not refused. */
const CHECK_RESOLVE_MS = 3_000;

/**
 * Why a webhook URL could never be delivered to under this policy (its scheme, or an address its host is or
 * resolves to now), or null. A name that does not resolve now is not refused: it may be registered later, and
 * every attempt checks again.
 */
export async function refusedUrlReason(raw: string, opts: HttpWebhookSenderOptions = {}): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not an absolute URL';
  }
  const scheme = refusedScheme(url, opts);
  if (scheme) return scheme;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string[]>((resolve) => {
    timer = setTimeout(() => resolve([]), CHECK_RESOLVE_MS);
  });
  const addresses = await Promise.race([hostAddresses(url, opts).catch(() => []), late]).finally(() => clearTimeout(timer));
  for (const address of addresses) {
    const reason = refusedFor(url, address);
    if (reason) return reason;
  }
  return null;
}

/** A lookup that answers with the checked address, so the connection goes where the check looked. */
const pinnedLookup =
  (address: string): LookupFunction =>
  (_hostname, options, callback) => {
    const family = ipaddr.parse(address).kind() === 'ipv6' ? 6 : 4;
    if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };

/** POST once; resolves with the status and the first bytes of the body, or rejects with why not. */
function post(
  url: URL,
  address: string,
  request: WebhookRequest,
  opts: Required<Omit<HttpWebhookSenderOptions, 'resolve' | 'ca'>> & HttpWebhookSenderOptions,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method: 'POST',
      headers: { ...request.headers, 'Content-Length': Buffer.byteLength(request.body), 'User-Agent': 'Dossier-Webhooks/1' },
      lookup: pinnedLookup(address),
      agent: false,
      ca: opts.ca,
      timeout: opts.connectTimeoutMs,
    });
    const overall = setTimeout(() => req.destroy(new Error(`No response within ${opts.responseTimeoutMs} ms`)), opts.responseTimeoutMs);
    req.on('socket', (socket) => socket.once('connect', () => req.setTimeout(opts.responseTimeoutMs)));
    req.on('timeout', () => req.destroy(new Error('Timed out')));
    req.on('error', (err) => {
      clearTimeout(overall);
      reject(err);
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = () => {
        clearTimeout(overall);
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      };
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= opts.maxResponseBytes) chunks.push(chunk);
        else {
          res.destroy();
          finish();
        }
      });
      res.on('end', finish);
      res.on('error', (err) => {
        clearTimeout(overall);
        reject(err);
      });
    });
    req.end(request.body);
  });
}

/**
 * Webhook POSTs with an SSRF policy: HTTPS only (plain HTTP to loopback when allowed), the name resolved and
 * every address checked on each attempt, the connection pinned to the checked address, no redirects
 * (a 3xx is just a failed attempt), connect and response timeouts and a response-size cap.
 */
export function createHttpWebhookSender(options: HttpWebhookSenderOptions = {}): WebhookSender {
  const opts = { allowHttpLoopback: false, connectTimeoutMs: 5_000, responseTimeoutMs: 10_000, maxResponseBytes: 64 * 1024, ...options };
  return {
    async send(request: WebhookRequest): Promise<WebhookResponse> {
      try {
        const url = new URL(request.url);
        const scheme = refusedScheme(url, opts);
        if (scheme) throw new Error(`Refused: ${scheme}`);
        const address = await checkedAddress(url, opts);
        return { ok: true, ...(await post(url, address, request, opts)) };
      } catch (err) {
        return { ok: false, error: err instanceof Error ? err.message || err.name : String(err) };
      }
    },
    checkUrl: (url: string) => refusedUrlReason(url, opts),
  };
}
