import type Router from '@koa/router';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION, allRoutes, createApp } from '../src/app.ts';
import type { RouteDef } from '../src/routes/define.ts';
import { type Json, startTestServer, type TestServer } from './helpers.ts';

let t: TestServer;
let doc: Json;
let routes: RouteDef[];

beforeAll(async () => {
  t = await startTestServer();
  const res = await t.request('GET', '/v1/openapi.json', { auth: null });
  expect(res.status).toBe(200);
  doc = res.body;
  routes = allRoutes({ dossier: t.server.dossier, config: t.config, publicUrl: () => t.url, limits: t.server.limits });
});
afterAll(async () => {
  await t?.close();
});

const openapiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');
const operationOf = (method: string, path: string) => doc.paths[openapiPath(path)]?.[method.toLowerCase()];

/** Method and path of every route the Koa router of a freshly built app answers. */
function mountedRoutes(): { method: string; path: string }[] {
  const app = createApp(t.server.dossier, { config: t.config, publicUrl: () => t.url, limits: t.server.limits }).koa;
  const dispatch = app.middleware.find((m) => 'router' in m) as unknown as { router: Router } | undefined;
  if (!dispatch) throw new Error('no router middleware');
  return dispatch.router.stack.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((method) => ({ method, path: String(layer.path) })));
}

describe('GET /v1/openapi.json', () => {
  it('serves an OpenAPI 3.1 document without authentication', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: expect.any(String), version: API_VERSION });
    expect(doc.components.schemas.Error).toEqual({ type: 'object', required: ['error'], properties: { error: { type: 'string' } } });
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['apiKey', 'jwt', 'oauth', 'orgApiKey']);
  });

  it('documents every route of allRoutes, and nothing else', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m.toUpperCase()} ${path}`));
    const declared = routes.map((r) => `${r.method.toUpperCase()} ${openapiPath(r.path)}`);
    expect(documented.sort()).toEqual([...new Set(declared)].sort());
  });

  it('documents every route the server answers', () => {
    const mounted = mountedRoutes();
    expect(mounted.length).toBeGreaterThanOrEqual(routes.length);
    expect(mounted).toEqual(
      expect.arrayContaining([
        { method: 'GET', path: '/v1/openapi.json' },
        { method: 'GET', path: '/health' },
      ]),
    );
    for (const { method, path } of mounted) expect(operationOf(method, path), `${method} ${path}`).toBeDefined();
  });

  it('answers every documented operation (no router 404)', async () => {
    const id = crypto.randomUUID();
    for (const r of routes) {
      const path = r.path.replace(/:(\w+)/g, id);
      const res = await t.request(r.method.toUpperCase(), path, { auth: null });
      const body = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
      expect(body, `${r.method} ${r.path}`).not.toMatch(/No route for/);
      expect(res.status, `${r.method} ${r.path}`).toBeLessThan(500);
    }
  });

  it('declares every path parameter, the security of each route, and {error} bodies for 4xx answers', () => {
    for (const r of routes) {
      const op = operationOf(r.method, r.path);
      const params = [...r.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
      const declared = op.parameters.filter((p: { in: string }) => p.in === 'path').map((p: { name: string }) => p.name);
      expect(declared, r.path).toEqual(params);
      expect(op.summary, r.path).toEqual(expect.any(String));
      if (r.auth === 'key') expect(op.security).toEqual([{ apiKey: [] }]);
      if (r.auth === 'key-or-public') expect(op.security).toEqual([{ apiKey: [] }, {}]);
      if (r.auth === 'jwt') expect(op.security).toEqual([{ jwt: [] }]);
      for (const [status, response] of Object.entries(op.responses as Record<string, { content?: unknown }>)) {
        // Server-rendered pages (the OAuth consent and connected-clients pages) answer their refusals as pages.
        const refusal = r.produces
          ? { [r.produces]: { schema: { type: 'string' } } }
          : { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
        if (Number(status) >= 400) expect(response.content, `${r.path} ${status}`).toEqual(refusal);
      }
    }
  });

  it('names every operation with a unique camelCase operationId', () => {
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops as Record<string, { operationId: string }>).map((op) => op.operationId));
    expect(ids).toHaveLength(new Set(routes.map((r) => `${r.method} ${r.path}`)).size);
    for (const id of ids) expect(id).toMatch(/^[a-z][a-zA-Z0-9]*$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(operationOf('post', '/v1/auth/login').operationId).toBe('login');
    expect(operationOf('post', '/auth/login').operationId).toBe('loginUnversioned');
  });

  it('defines named schemas once under components and refers to them there (no $defs)', () => {
    const text = JSON.stringify(doc);
    expect(text).not.toContain('$defs');
    expect(doc.components.schemas.JsonValue.anyOf).toEqual(
      expect.arrayContaining([{ $ref: '#/components/schemas/JsonArray' }, { $ref: '#/components/schemas/JsonObject' }]),
    );
    expect(doc.components.schemas.JsonObject.additionalProperties).toEqual({ $ref: '#/components/schemas/JsonValue' });
    const refs = [...text.matchAll(/"\$ref":"#\/components\/schemas\/(\w+)"/g)].map((m) => m[1]);
    for (const name of new Set(refs)) expect(doc.components.schemas[name as string], name).toBeDefined();
  });

  it('describes each JSON answer with the schema the handler replies with', () => {
    const json = (method: string, path: string, status: number) => operationOf(method, path).responses[status].content['application/json'].schema;
    expect(json('post', '/v1/collections', 201)).toEqual({ $ref: '#/components/schemas/Collection' });
    expect(json('get', '/v1/collections', 200)).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Collection' } });
    expect(doc.components.schemas.Collection.required).toEqual(expect.arrayContaining(['id', 'name', 'visibility', 'embeddingModel']));
    expect(doc.components.schemas.Collection.properties).not.toHaveProperty('projectId');
    expect(json('get', '/v1/collections/:id/documents', 200).properties.documents).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Document' } });
    expect(operationOf('get', '/v1/documents/:id/markdown').responses[200].content).toHaveProperty('text/markdown');
    expect(operationOf('post', '/v1/collections/:id/research').responses[200].content).toHaveProperty('text/event-stream');
    for (const r of routes) {
      for (const [status, response] of Object.entries(operationOf(r.method, r.path).responses as Record<string, { content?: object }>)) {
        const bodyless = status === '204' || status === '202' || (r.method === 'delete' && Number(status) < 300);
        if (!bodyless) expect(response.content, `${r.method} ${r.path} ${status}`).toBeDefined();
      }
    }
  });

  it('publishes the request schemas the server validates with, unknown keys rejected', () => {
    const query = operationOf('post', '/v1/collections/:id/query').requestBody.content['application/json'].schema;
    expect(query.additionalProperties).toBe(false);
    expect(query.required).toEqual(['q']);
    expect(query.properties.limit).toMatchObject({ minimum: 1, maximum: 50, default: 10 });
    const scan = operationOf('post', '/v1/collections/:id/sections/scan').requestBody.content['application/json'].schema;
    expect(scan.properties.top_k).toMatchObject({ minimum: 1, maximum: 100, default: 20 });
    const list = operationOf('get', '/v1/collections/:id/documents').parameters.find((p: { name: string }) => p.name === 'limit');
    expect(list).toMatchObject({ in: 'query', required: false, schema: { minimum: 1, maximum: 500, default: 100 } });
    const upload = operationOf('post', '/v1/collections/:id/documents').requestBody.content;
    expect(Object.keys(upload)).toEqual(['multipart/form-data']);
    const form = upload['multipart/form-data'];
    expect(form.schema.required).toEqual(['file']);
    expect(form.schema.properties.file).toMatchObject({ type: 'string', format: 'binary' });
    expect(form.schema.properties.tags).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(form.schema.properties.metadata).toMatchObject({ $ref: '#/components/schemas/JsonObject' });
    expect(form.encoding).toEqual({ tags: { contentType: 'application/json' }, metadata: { contentType: 'application/json' } });
    const batch = operationOf('post', '/v1/collections/:id/documents/batch').requestBody.content['multipart/form-data'];
    expect(batch.schema.properties.file).toMatchObject({ type: 'array', items: { type: 'string', format: 'binary' } });
    const create = operationOf('post', '/v1/collections').requestBody.content['application/json'].schema;
    expect(create.required.sort()).toEqual(['name', 'projectId']);
    expect(create.properties.chunkSize).toMatchObject({ minimum: 64, maximum: 4096 });
  });
});
