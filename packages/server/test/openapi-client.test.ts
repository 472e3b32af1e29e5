import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiTypesSource } from '../../../scripts/generate-api-types.ts';
import { startTestServer, type TestServer } from './helpers.ts';

let t: TestServer;
let dir: string;

beforeAll(async () => {
  t = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'dossier-openapi-client-'));
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Diagnostics of a strict type-check of the files in `dir` (no emit). */
function typeCheck(files: string[]): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('a client generated from the served document', () => {
  it('type-checks real answers of a running server against the generated types', { timeout: 120_000 }, async () => {
    // Real answers: a collection created and listed, a document uploaded and processed, its sections, a search.
    const created = await t.createCollection({ name: 'Generated client' });
    const listed = (await t.request('GET', '/v1/collections')).body;
    const uploaded = await t.upload(created.id, 'notes.md', '# Refunds\n\nRefunds take 14 days.\n\n## Exceptions\n\nNone.', { tags: ['policy'] });
    const ready = await t.waitDone(uploaded.id);
    const page = (await t.request('GET', `/v1/collections/${created.id}/documents`)).body;
    const sections = (await t.request('GET', `/v1/documents/${ready.id}/sections`)).body;
    const hits = (await t.request('POST', `/v1/collections/${created.id}/query`, { json: { q: 'refunds' } })).body;
    const usage = (await t.request('GET', '/v1/usage')).body;
    const login = (await t.request('POST', '/v1/auth/login', { auth: null, json: { email: t.email, password: t.password } })).body;
    expect(ready.status).toBe('ready');
    expect(hits.length).toBeGreaterThan(0);
    const document = (await t.request('GET', '/v1/openapi.json', { auth: null })).body;
    writeFileSync(join(dir, 'api.ts'), await apiTypesSource(document));

    // The answers as typed constants of a client: an object literal with a field the types lack, or without one
    // they require, or with a value of another type, fails to compile.
    const answer = (path: string, method: string, status: number) =>
      `paths[${JSON.stringify(path)}][${JSON.stringify(method)}]['responses'][${status}]['content']['application/json']`;
    const client = `import type { components, paths } from './api.ts';

type Document = components['schemas']['Document'];
export const created: ${answer('/v1/collections', 'post', 201)} = ${JSON.stringify(created)};
export const listed: ${answer('/v1/collections', 'get', 200)} = ${JSON.stringify(listed)};
export const uploaded: ${answer('/v1/collections/{id}/documents', 'post', 202)} = ${JSON.stringify(uploaded)};
export const ready: ${answer('/v1/documents/{id}/wait', 'get', 200)} = ${JSON.stringify(ready)};
export const page: ${answer('/v1/collections/{id}/documents', 'get', 200)} = ${JSON.stringify(page)};
export const sections: ${answer('/v1/documents/{id}/sections', 'get', 200)} = ${JSON.stringify(sections)};
export const hits: ${answer('/v1/collections/{id}/query', 'post', 200)} = ${JSON.stringify(hits)};
export const usage: ${answer('/v1/usage', 'get', 200)} = ${JSON.stringify(usage)};
export const login: ${answer('/v1/auth/login', 'post', 200)} = ${JSON.stringify(login)};

// Using them as a client would.
export const names: string[] = listed.map((c) => c.name);
export const tagged: Document[] = page.documents.filter((d) => d.tags.includes('policy'));
export const best: { filename: string; score: number } = { filename: hits[0]!.document.filename, score: hits[0]!.score };
export const titles: string[] = sections.map((s) => s.title);
export const queriesLeft: number | null = usage.meters.queries.limit;
export const token: string = login.token;
`;
    writeFileSync(join(dir, 'client.ts'), client);
    expect(typeCheck([join(dir, 'client.ts')])).toEqual([]);

    // And the same check fails on an answer that differs from the document: the test would catch a drift.
    writeFileSync(
      join(dir, 'drift.ts'),
      `import type { paths } from './api.ts';\nexport const drifted: ${answer('/v1/collections', 'post', 201)} = ${JSON.stringify({ ...created, projectId: 'leaked' })};\n`,
    );
    expect(typeCheck([join(dir, 'drift.ts')]).join('\n')).toMatch(/projectId/);
  });
});
