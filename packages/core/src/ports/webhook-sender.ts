/** One signed POST to a webhook endpoint. */
export interface WebhookRequest {
  url: string;
  /** The exact bytes that were signed. */
  body: string;
  headers: Record<string, string>;
}

/** What came back: a status and the start of the body, or why nothing came back. */
export type WebhookResponse =
  | { ok: true; status: number; body: string }
  | { ok: false; error: string };

/**
 * Sends webhook POSTs. An implementation decides which addresses are reachable (SSRF policy), never
 * follows redirects, bounds time and response size, and never throws: failures are `{ok: false}`.
 */
export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResponse>;
}
