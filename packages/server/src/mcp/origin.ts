import type { Context } from 'koa';

/** Host names of this machine (the DNS-rebinding attack sends another name for the same address). */
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

const hostnameOf = (authority: string): string | null => {
  try {
    return new URL(`http://${authority}`).hostname;
  } catch {
    return null;
  }
};
const originHostname = (origin: string): string | null => {
  try {
    return new URL(origin).hostname;
  } catch {
    return null; // `null` (a sandboxed page) and other opaque origins
  }
};

/**
 * Why a request to /mcp comes from somewhere it may not (Streamable HTTP: servers MUST validate Origin to prevent
 * DNS rebinding), or null. Allowed: no Origin (desktop and IDE clients send none), this server's own origin (its
 * public URL), the configured CORS origins, and — when the server is reached at a loopback address — any loopback
 * origin. A loopback server also refuses a Host that is not a loopback name: a rebound page's GET sends no Origin.
 */
export function originRefusal(ctx: Context, publicUrl: string, corsOrigins: readonly string[]): string | null {
  const own = new URL(publicUrl);
  const loopback = LOOPBACK_NAMES.has(own.hostname);
  const host = ctx.get('host');
  if (loopback && host && !LOOPBACK_NAMES.has(hostnameOf(host) ?? '')) return `Host ${host} is not this server's address`;
  const origin = ctx.get('origin');
  if (!origin || origin === own.origin || corsOrigins.includes('*') || corsOrigins.includes(origin)) return null;
  if (loopback && LOOPBACK_NAMES.has(originHostname(origin) ?? '')) return null;
  return `Origin ${origin} may not call this server's MCP endpoint (set DOSSIER_CORS_ORIGINS to allow a web client)`;
}
