import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup as dnsLookupAll } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { refusedAddressReason } from '../webhooks/http-sender.ts';

/**
 * An S3 source's endpoint is a URL a project admin types (issue 43): without a guard it would make the server send
 * requests to its own network (SSRF), as a webhook URL would. The same rule as webhooks (public unicast addresses
 * only), except that an operator may allow private ones (DOSSIER_SOURCES_ALLOW_PRIVATE_ENDPOINTS: a MinIO on the LAN
 * or this machine). Link-local addresses (169.254.0.0/16: cloud metadata services) stay refused either way.
 */
const PRIVATE_RANGES = new Set(['private', 'loopback', 'uniqueLocal', 'carrierGradeNat']);

/** How long an endpoint's name may take to resolve when a source is saved; past it, the run's connections check it. */
const CHECK_RESOLVE_MS = 3_000;

const HINT = 'private addresses are allowed only when the server runs with DOSSIER_SOURCES_ALLOW_PRIVATE_ENDPOINTS=true';

/** Why an S3 source may not connect to this address, or null. */
export function refusedEndpointAddress(address: string, allowPrivate: boolean): string | null {
  const reason = refusedAddressReason(address);
  if (reason === null || !ipaddr.isValid(address)) return reason;
  const range = ipaddr.process(address).range();
  if (allowPrivate && PRIVATE_RANGES.has(range)) return null;
  return PRIVATE_RANGES.has(range) ? `${reason} (${HINT})` : reason;
}

async function resolvedWithin(host: string, ms: number): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string[]>((resolve) => {
    timer = setTimeout(() => resolve([]), ms);
  });
  const found = dnsLookupAll(host, { all: true, verbatim: true }).then(
    (entries) => entries.map((e) => e.address),
    () => [],
  );
  return Promise.race([found, late]).finally(() => clearTimeout(timer));
}

/**
 * Why an S3 endpoint URL may not be used (its scheme, credentials in it, or an address its host is or resolves to
 * now), or null. A name that does not resolve now is not refused: every connection of a run checks it again.
 */
export async function refusedEndpointReason(raw: string, allowPrivate: boolean): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'only http(s) endpoints';
  if (url.username || url.password) return 'the URL must not carry credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = ipaddr.isValid(host) ? [host] : await resolvedWithin(host, CHECK_RESOLVE_MS);
  for (const address of addresses) {
    const reason = refusedEndpointAddress(address, allowPrivate);
    if (reason) return reason;
  }
  return null;
}

/**
 * A lookup that refuses a name resolving to a refused address, at every connection: a name that pointed at a public
 * address when the source was saved and at a private one later (DNS rebinding) is refused then.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, entries: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const refused = entries.map((e) => refusedEndpointAddress(e.address, allowPrivate)).find((r) => r !== null);
      if (refused) return callback(Object.assign(new Error(`Refused to connect to ${hostname}: ${refused}`), { code: 'EREFUSED' }), '', 0);
      const first = entries[0];
      if (options.all) (callback as (e: null, a: LookupAddress[]) => void)(null, entries);
      else callback(null, first?.address ?? '', first?.family ?? 4);
    });
  };
}

/** The S3 client's HTTP agents, connecting only where guardedLookup lets them. */
export function guardedAgents(allowPrivate: boolean): { httpAgent: http.Agent; httpsAgent: https.Agent } {
  const lookup = guardedLookup(allowPrivate);
  return { httpAgent: new http.Agent({ keepAlive: true, lookup }), httpsAgent: new https.Agent({ keepAlive: true, lookup }) };
}
