import { describe, expect, it } from 'vitest';
import { checkWebhookUrl } from '../../src/webhooks/service.ts';

describe('checkWebhookUrl', () => {
  it('takes HTTPS URLs, and plain-HTTP loopback ones only when the operator allows them', () => {
    expect(checkWebhookUrl('https://example.com/hook', false)).toBe('https://example.com/hook');
    expect(checkWebhookUrl('http://127.0.0.1:9000/hook', true)).toBe('http://127.0.0.1:9000/hook');
    expect(() => checkWebhookUrl('http://example.com/hook', true)).toThrow(/^url: must be an HTTPS URL$/);
  });

  it('names the development setting when a plain-HTTP loopback URL is refused (issue 36)', () => {
    for (const url of ['http://127.0.0.1:9000/hook', 'http://localhost/hook', 'http://[::1]:8000/']) {
      expect(() => checkWebhookUrl(url, false)).toThrow(/DOSSIER_WEBHOOKS_ALLOW_HTTP_LOOPBACK=true/);
    }
  });
});
