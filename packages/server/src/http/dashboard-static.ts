import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context, Middleware, Next } from 'koa';

/**
 * Serves the dashboard (packages/web, issue 34) at `/`: its built files, and index.html for any other page path
 * a browser asks for (the app's own routes: the single-page fallback). API paths are never answered here.
 * Hashed assets are cached for a year; index.html is revalidated on every load, so a new build shows at once.
 * Pages carry a Content-Security-Policy that allows this origin's scripts, styles and API only.
 */

/**
 * The dashboard's build: dist/web inside the published package (copied there before packing, see
 * scripts/bundle-dashboard.mjs), else packages/web/dist of the workspace (not committed: the start script builds it).
 */
export const DEFAULT_DASHBOARD_DIR =
  [new URL('../web', import.meta.url), new URL('../../../web/dist', import.meta.url)]
    .map((url) => fileURLToPath(url))
    .find((dir) => existsSync(join(dir, 'index.html'))) ?? fileURLToPath(new URL('../../../web/dist', import.meta.url));

/** Path prefixes of the API and the server-rendered pages: never the dashboard's. */
const API_PREFIXES = ['/v1', '/mcp', '/oauth', '/.well-known', '/auth', '/orgs', '/health', '/invite', '/reset-password'];

export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

const isApiPath = (path: string): boolean => API_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`));

/** The file under `dir` a request path names, or null when it names none (or escapes the folder). */
function fileOf(dir: string, path: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const file = normalize(join(dir, decoded));
  if (!file.startsWith(dir + sep)) return null;
  return existsSync(file) && statSync(file).isFile() ? file : null;
}

/** Send a file, its gzip twin when the build wrote one and the client takes it. */
function sendFile(ctx: Context, file: string, cacheControl: string): void {
  const gzipped = `${file}.gz`;
  const gzip = /\bgzip\b/.test(ctx.get('accept-encoding')) && existsSync(gzipped);
  ctx.status = 200;
  ctx.type = TYPES[extname(file)] ?? 'application/octet-stream';
  ctx.set('Cache-Control', cacheControl);
  ctx.set('Vary', 'Accept-Encoding');
  if (gzip) ctx.set('Content-Encoding', 'gzip');
  ctx.body = readFileSync(gzip ? gzipped : file);
}

/** Send the app's page: its Content-Security-Policy, never cached without revalidation. */
function sendPage(ctx: Context, dir: string): void {
  sendFile(ctx, join(dir, 'index.html'), 'no-cache');
  ctx.set({ 'Content-Security-Policy': DASHBOARD_CSP, 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'same-origin' });
}

/** Koa middleware serving the dashboard built in `dir` (while it is not built, requests pass on: the API's 404). */
export function dashboardStatic(dir: string = DEFAULT_DASHBOARD_DIR): Middleware {
  const root = normalize(dir);
  return async (ctx: Context, next: Next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || isApiPath(ctx.path)) return next();
    const built = existsSync(join(root, 'index.html'));
    const file = built && ctx.path !== '/' ? fileOf(root, ctx.path) : null;
    if (file?.endsWith('.html')) return sendPage(ctx, root);
    if (file) return sendFile(ctx, file, ctx.path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (ctx.path.startsWith('/assets/') || extname(ctx.path)) return next(); // a missing asset is a 404, not the page
    // Only a browser's navigation gets the page (API clients asking for */* keep their JSON 404).
    if (!built || !ctx.get('accept').includes('text/html')) return next();
    sendPage(ctx, root);
  };
}
