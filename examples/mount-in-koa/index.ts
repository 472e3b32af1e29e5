/**
 * Dossier's `/v1` API inside an existing Koa application (issue 10): the host keeps its own authentication
 * (here, its own session tokens) and mounts the API under `/search`; for a signed-in user it tells Dossier who
 * is calling (a principal acting in the host's project), and Dossier's access rules apply behind that. Requests
 * the host does not vouch for fall back to Dossier's own credentials (API keys), so service-to-service callers
 * keep working.
 *
 *   node --import tsx examples/mount-in-koa/index.ts      (then: curl -H 'Authorization: Bearer alice-session' …)
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { createDossier, type EmbeddedDossier } from '@dossier/adapters';
import type { Principal } from '@dossier/core';
import { createApp } from '@dossier/server';
import Koa from 'koa';

/** The host's own users, by session token (a real app has a session store or an identity provider). */
const SESSIONS: Readonly<Record<string, string>> = { 'alice-session': 'alice', 'bob-session': 'bob' };

/** A running host application. */
export interface HostApp {
  url: string;
  /** The project the host's users act in (API bodies that name a project use it). */
  projectId: string;
  dossier: EmbeddedDossier;
  close(): Promise<void>;
}

/** Start the host app on 127.0.0.1 (port 0: any free one) with Dossier mounted under `/search`. */
export async function startHostApp(dataDir: string, port = 0): Promise<HostApp> {
  const dossier = await createDossier({ dataDir, embeddingModel: 'builtin:hash-128' });
  // The host's users act in one project of its own: the embedded library's local project.
  const { access } = await dossier.local();
  const host = new Koa();

  // 1. The host's authentication, in front: it reads its own session token (not Dossier's).
  host.use(async (ctx, next) => {
    const token = /^Bearer (\S+)$/.exec(ctx.get('authorization'))?.[1];
    ctx.state.user = token ? SESSIONS[token] : undefined;
    await next();
  });

  // 2. Dossier, mounted before any body parser (it reads its own request bodies).
  let url = '';
  const api = createApp(dossier, {
    prefix: '/search',
    publicUrl: () => `${url}/search`,
    principal: (_req, state): Principal | undefined =>
      typeof state?.user === 'string' ? { kind: 'project_key', projectId: access.projectId, env: access.env, keyId: `host-user:${state.user}` } : undefined,
  });
  host.use(api.middleware);

  // 3. The host's own routes.
  host.use(async (ctx) => {
    if (ctx.path !== '/hello') return;
    ctx.body = { hello: ctx.state.user ?? 'stranger' };
  });

  const http = createServer(host.callback()).listen(port, '127.0.0.1');
  await new Promise<void>((res, rej) => http.once('listening', res).once('error', rej));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    url,
    projectId: access.projectId,
    dossier,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((res) => http.close(() => res()));
      await dossier.close();
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  startHostApp(process.argv[2] ?? './host-data', Number(process.env.PORT ?? 0)).then((app) => {
    console.log(`host app at ${app.url}: GET /hello, Dossier under ${app.url}/search/v1 (Authorization: Bearer alice-session)`);
    process.once('SIGINT', () => void app.close().then(() => process.exit(0)));
  });
}
