import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isClaimExtraction, recordClaimsTurn, ScriptedModel, type ScriptedTurn } from '@dossier/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../src/client.ts';
import { createMcpServer, TOOLS } from '@dossier/mcp';
import { cliCommand, ROOT, seedReports, startTestServer, type TestServer, tempHome, waitFor } from './helpers.ts';

let t: TestServer;
let cid: string;
let docId: string;
let client: Client;

/** Research asks to search once, then writes `answer`; every claim extraction records one claim. */
let researchTurns = 0;
let answer: ScriptedTurn = { text: ['Revenue grew ', '12 percent [S1].'] };
const model = new ScriptedModel((request): ScriptedTurn => {
  if (isClaimExtraction(request))
    return recordClaimsTurn([{ section: 1, text: 'Revenue grew 12 percent in 2024.', importance: 4, sourceText: 'Revenue grew 12 percent' }]);
  if (String(request.messages[0]?.content).startsWith('You write the description of a document collection'))
    return { text: 'Annual reports on revenue and costs.' };
  researchTurns += 1;
  return researchTurns % 2 === 1 ? { toolCalls: [{ name: 'search', arguments: { query: 'revenue' } }] } : answer;
});
const sessionCount = async () => ((await t.request('GET', `/v1/collections/${cid}/research`)).body as unknown[]).length;

beforeAll(async () => {
  t = await startTestServer({ config: { providerRetries: 0 } });
  ({ cid, docId } = await seedReports(t, model));
  const server = createMcpServer({ api: new ApiClient(`${t.url}/v1`, t.liveKey), projectId: t.projectId }, 'test');
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: 'mcp-test', version: '1' });
  await client.connect(clientSide);
});
afterAll(async () => {
  await client?.close();
  await t?.close();
});

const call = async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;
const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;

describe('dossier mcp: the svc_ tools', () => {
  it('searches, lists collections and reads a document as structured content', async () => {
    const search = await call('svc_search', { collectionId: cid, query: 'revenue growth' });
    expect(search.isError).toBeFalsy();
    const hits = (search.structuredContent as { hits: { content?: string; documentId?: string }[] }).hits;
    expect(hits.length).toBeGreaterThan(0);
    expect(JSON.stringify(hits[0])).toContain('Revenue grew 12 percent');
    const listed = await call('svc_list_collections');
    expect((listed.structuredContent as { collections: { id: string }[] }).collections.map((c) => c.id)).toContain(cid);
    const document = await call('svc_get_document', { documentId: docId });
    expect(document.structuredContent).toMatchObject({ id: docId, filename: 'report.md', status: 'ready' });
    const sections = (await call('svc_get_document_sections', { documentId: docId })).structuredContent as { sections: { id: string; title: string }[] };
    const revenue = sections.sections.find((section) => section.title === 'Revenue')!;
    expect(text(await call('svc_get_section', { sectionId: revenue.id }))).toContain('Revenue grew 12 percent');
    expect(text(await call('svc_get_document_markdown', { documentId: docId }))).toContain('## Revenue');
    const claims = (await call('svc_list_claims', { collectionId: cid, minImportance: 3 })).structuredContent as { claims: { text: string }[] };
    expect(claims.claims.map((claim) => claim.text)).toEqual(['Revenue grew 12 percent in 2024.']);
  });

  it('describes a collection with the fast model from its file names and headings, and saves it', async () => {
    const described = await call('svc_describe_collection', { collectionId: cid });
    expect(described.isError, text(described)).toBeFalsy();
    expect(described.structuredContent).toEqual({ collectionId: cid, description: 'Annual reports on revenue and costs.' });
    expect((await t.request('GET', `/v1/collections/${cid}`)).body.description).toBe('Annual reports on revenue and costs.');
    const prompt = model.calls
      .at(-1)!
      .request.messages.map((message) => String(message.content))
      .join('\n');
    expect(prompt).toContain('report.md');
    expect(prompt).toContain('Revenue');
  });

  it("reports a bad id and bad input as isError results with the API's message", async () => {
    const missing = await call('svc_get_document', { documentId: '01a20000-0000-7000-8000-000000000000' });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/not found.*\(HTTP 404\)/i);
    const badBatch = await call('svc_batch_delete_documents', { collectionId: cid, documentIds: ['not-a-uuid'] });
    expect(badBatch.isError).toBe(true);
    expect(text(badBatch)).toMatch(/must be a UUID.*\(HTTP 400\)/);
  });

  it('researches with progress notifications for each tool call', async () => {
    const progress: string[] = [];
    const result = (await client.callTool(
      { name: 'svc_research', arguments: { collectionId: cid, question: 'How did revenue change?', depth: 'quick' } },
      undefined,
      {
        onprogress: (note) => progress.push(note.message ?? ''),
      },
    )) as CallToolResult;
    expect(result.isError, text(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ answer: 'Revenue grew 12 percent [S1].', sessionId: expect.any(String) });
    expect((result.structuredContent as { sources: { filename: string }[] }).sources[0]).toMatchObject({ filename: 'report.md' });
    expect(progress).toContain('search: revenue');
  });

  it('cancels research when the client cancels the call: the model call is aborted and no session is saved', async () => {
    answer = { text: ['Revenue '], hangAfterDeltas: 1 };
    const [before, callsBefore] = [await sessionCount(), model.calls.length];
    const cancel = new AbortController();
    const progress: string[] = [];
    const called = client.callTool({ name: 'svc_research', arguments: { collectionId: cid, question: 'Revenue?' } }, undefined, {
      signal: cancel.signal,
      onprogress: (note) => progress.push(note.message ?? ''),
    });
    const rejected = expect(called).rejects.toThrow(/abort/i);
    // the answer turn (after the search) is the second call of this run: cancel while it streams
    await waitFor(async () => model.calls.length >= callsBefore + 2 && model.calls.at(-1)!.outcome === 'running', 'the answer turn to start', 10_000);
    cancel.abort();
    await rejected;
    await waitFor(async () => model.calls.at(-1)!.outcome === 'aborted', 'the model call to be aborted', 10_000);
    expect(progress).toContain('search: revenue');
    expect(await sessionCount()).toBe(before);
  });

  it('serves over a real stdio subprocess with SERVICE_API_KEY and SERVICE_BASE_URL', async () => {
    const home = tempHome();
    const [command, ...args] = await cliCommand();
    const transport = new StdioClientTransport({
      command: command!,
      args: [...args, 'mcp'],
      cwd: ROOT,
      stderr: 'pipe',
      env: { PATH: process.env.PATH!, HOME: home.home, SERVICE_BASE_URL: t.url, SERVICE_API_KEY: t.liveKey },
    });
    const stdio = new Client({ name: 'mcp-stdio-test', version: '1' });
    try {
      await stdio.connect(transport);
      expect((await stdio.listTools()).tools).toHaveLength(TOOLS.length);
      const listed = (await stdio.callTool({ name: 'svc_list_collections', arguments: {} })) as CallToolResult;
      expect((listed.structuredContent as { collections: { id: string }[] }).collections.map((c) => c.id)).toContain(cid);
    } finally {
      await stdio.close();
      home.cleanup();
    }
  });
});
