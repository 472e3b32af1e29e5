/** One signed POST to a webhook endpoint. */
export interface WebhookRequest {
  url: string;
  /** The exact bytes that were signed. */
  body: string;
  headers: Record<string, string>;
}

/** What came back: a status and the start of the body, or why nothing came back. */
export type WebhookResponse = { ok: true; status: number; body: string } | { ok: false; error: string };

/**
 * Sends webhook POSTs. An implementation decides which addresses are reachable (SSRF policy), never
 * follows redirects, bounds time and response size, and never throws: failures are `{ok: false}`.
 */
export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResponse>;
  /**
   * Why a URL could never be delivered to under this sender's policy (its scheme, or an address its host is or
   * resolves to now), or null. Endpoints are checked with it when created or given a new URL, so one that can
   * never be delivered to is a 400 rather than hours of refused retries.
   */
  checkUrl?(url: string): Promise<string | null>;
}
