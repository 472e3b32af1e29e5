/**
 * A client generated from the served OpenAPI document compiles as generated (issue 36): openapi-typescript with no
 * transform, then a small openapi-fetch program (create a collection, upload a file with tags and metadata, wait,
 * query) type-checked with `strict` and `skipLibCheck: false`, and run against the same server.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers.ts';

const root = join(import.meta.dirname, '..', '..', '..');

const CLIENT = `import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';

type JsonObject = components['schemas']['JsonObject'];

/** Create a collection, upload one Markdown file, wait until it is ready, and return the best passage for \`q\`. */
export async function firstSession(baseUrl: string, key: string, projectId: string, q: string): Promise<string> {
  const api = createClient<paths>({ baseUrl, headers: { Authorization: \`Bearer \${key}\` } });
  const created = await api.POST('/v1/collections', { body: { projectId, name: 'typed client' } });
  if (!created.data) throw new Error(created.error?.error ?? 'no collection');
  const collection: components['schemas']['Collection'] = created.data;

  const metadata: JsonObject = { team: 'research', year: 2026, reviewed: false, owners: ['ana', { name: 'li' }], extra: null };
  const uploaded = await api.POST('/v1/collections/{id}/documents', {
    params: { path: { id: collection.id } },
    body: { file: '# Field notes\\n\\n## Floods\\n\\nThe river floods every spring when the snow melts.\\n', tags: ['draft'], metadata },
    bodySerializer: (body) => {
      const form = new FormData();
      form.append('file', new Blob([body.file]), 'notes.md');
      if (body.tags) form.append('tags', JSON.stringify(body.tags));
      if (body.metadata) form.append('metadata', JSON.stringify(body.metadata));
      return form;
    },
  });
  if (!uploaded.data) throw new Error(uploaded.error?.error ?? 'no document');
  const documentId: string = uploaded.data.id;

  const waited = await api.GET('/v1/documents/{id}/wait', { params: { path: { id: documentId } } });
  if (waited.data?.status !== 'ready') throw new Error(\`document is \${waited.data?.status}\`);
  const team: components['schemas']['JsonValue'] | undefined = waited.data.metadata.team;
  if (team !== 'research') throw new Error('metadata did not round-trip');

  const found = await api.POST('/v1/collections/{id}/query', { params: { path: { id: collection.id } }, body: { q, limit: 3 } });
  if (!found.data) throw new Error(found.error?.error ?? 'no results');
  const [best] = found.data;
  return best ? \`\${best.document.filename}: \${best.chunk.content}\` : '';
}
`;

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    skipLibCheck: false,
    target: 'es2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    lib: ['es2022', 'dom'],
    types: [],
    declaration: false,
    outDir: 'out',
  },
  files: ['api.d.ts', 'client.ts'],
};

let t: TestServer;
let project: string;
beforeAll(async () => {
  t = await startTestServer();
  // Inside the workspace's node_modules, so that 'openapi-fetch' resolves as it would from an app's own.
  project = mkdtempSync(join(root, 'node_modules', '.generated-client-'));
});
afterAll(async () => {
  await t.close();
  rmSync(project, { recursive: true, force: true });
});

describe('a client generated from /v1/openapi.json', () => {
  it('compiles as generated (openapi-typescript, no transform, skipLibCheck false) and runs create, upload, wait and query', async () => {
    const document = (await t.request('GET', '/v1/openapi.json', { auth: null })).body;
    writeFileSync(join(project, 'api.d.ts'), astToString(await openapiTS(document as OpenAPI3)));
    writeFileSync(join(project, 'client.ts'), CLIENT);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    try {
      execFileSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8', timeout: 120_000 });
    } catch (err) {
      throw new Error(`the generated client does not compile:\n${(err as { stdout?: string }).stdout ?? err}`);
    }
    const { firstSession } = (await import(pathToFileURL(join(project, 'out', 'client.js')).href)) as {
      firstSession(baseUrl: string, key: string, projectId: string, q: string): Promise<string>;
    };
    expect(await firstSession(t.url, t.liveKey, t.projectId, 'when does the river flood?')).toMatch(/^notes\.md: .*floods every spring/s);
  }, 180_000);
});
