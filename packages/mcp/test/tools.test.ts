import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer, EXTENSION_TOOL_NAMES, fetchToolApi, TOOLS } from '../src/index.ts';

/** The spec's tool table, kept in the repository (spec-tools.json) so the suite runs from a lone clone. */
const SPEC_TOOLS = JSON.parse(readFileSync(join(import.meta.dirname, 'spec-tools.json'), 'utf8')) as { tools: { name: string; purpose: string }[] };
const specToolNames = (): string[] => SPEC_TOOLS.tools.map((tool) => tool.name);

/** The specification itself, where a checkout has it beside the repository (CI does). */
const SPEC_PATH = join(import.meta.dirname, '..', '..', '..', '..', 'shared', 'spec', 'service-spec.md');

/** Rows `| svc_… | purpose |` of the spec's tool-server table. */
function toolRowsOfSpec(spec: string): { name: string; purpose: string }[] {
  const table = spec.slice(spec.indexOf('### Tool-server interface'), spec.indexOf('### Command-line client'));
  return [...table.matchAll(/^\| (svc_\w+) \| (.*) \|$/gm)].map((match) => ({ name: match[1]!, purpose: match[2]! }));
}

/** Tools whose answer is Markdown text rather than data (no outputSchema, no structuredContent). */
const TEXT_TOOLS = new Set(['svc_get_document_markdown']);

let listed: Tool[];
beforeAll(async () => {
  const unreachable = fetchToolApi(async () => new Response('{"error":"not used"}', { status: 500 }), 'http://unused/v1');
  const server = createMcpServer({ api: unreachable, projectId: null }, 'test');
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'tools-test', version: '1' });
  await client.connect(clientSide);
  listed = (await client.listTools()).tools;
  await client.close();
});

describe('the svc_ tool table', () => {
  it.skipIf(!existsSync(SPEC_PATH))("keeps spec-tools.json equal to the specification's table (checked where ../shared/spec is present)", () => {
    expect(SPEC_TOOLS.tools).toEqual(toolRowsOfSpec(readFileSync(SPEC_PATH, 'utf8')));
  });

  it("has every tool of the spec's table, and beyond it only the declared extension tools", () => {
    const spec = specToolNames();
    expect(spec).toHaveLength(30);
    expect(EXTENSION_TOOL_NAMES.filter((name) => spec.includes(name))).toEqual([]);
    const expected = [...spec, ...EXTENSION_TOOL_NAMES].sort();
    expect(TOOLS.map((tool) => tool.name).sort()).toEqual(expected);
    expect(listed.map((tool) => tool.name).sort()).toEqual(expected);
  });

  it('documents the extension tools in docs/mcp.md, and they are read-only', () => {
    const docs = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'mcp.md'), 'utf8');
    const line = docs.split('\n').find((l) => l.startsWith("Extension tools (beyond the spec's table):")) ?? '';
    expect([...line.matchAll(/`(svc_\w+)`/g)].map((m) => m[1]).sort()).toEqual([...EXTENSION_TOOL_NAMES].sort());
    expect(EXTENSION_TOOL_NAMES.length).toBeGreaterThan(0);
    for (const name of EXTENSION_TOOL_NAMES) expect(TOOLS.find((tool) => tool.name === name)!.scope, name).toBe('svc:read');
  });

  it('maps every tool to one scope: the read-only tools are svc:read, every other one svc:full', () => {
    for (const tool of TOOLS) expect(tool.scope, tool.name).toBe(tool.annotations.readOnlyHint ? 'svc:read' : 'svc:full');
    expect(TOOLS.filter((tool) => tool.scope === 'svc:read').map((tool) => tool.name)).toContain('svc_search');
    expect(TOOLS.find((tool) => tool.name === 'svc_research')!.scope).toBe('svc:full');
  });

  it('is the scope table of docs/mcp.md, tool by tool', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'mcp.md'), 'utf8');
    const row = (scope: string) =>
      [...(readme.split('\n').find((line) => line.startsWith(`| \`${scope}\` |`)) ?? '').matchAll(/`(svc_\w+)`/g)].map((m) => m[1]);
    expect(row('svc:read').sort()).toEqual(
      TOOLS.filter((tool) => tool.scope === 'svc:read')
        .map((tool) => tool.name)
        .sort(),
    );
    expect(row('svc:full').sort()).toEqual(
      TOOLS.filter((tool) => tool.scope === 'svc:full')
        .map((tool) => tool.name)
        .sort(),
    );
  });

  it('gives every tool a description, annotations, and a description for each input a model fills in', () => {
    for (const tool of listed) {
      expect(tool.description!.length, tool.name).toBeGreaterThan(30);
      expect(tool.annotations, tool.name).toMatchObject({
        readOnlyHint: expect.any(Boolean),
        destructiveHint: expect.any(Boolean),
        idempotentHint: expect.any(Boolean),
      });
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>;
      for (const [name, schema] of Object.entries(properties)) expect(schema.description, `${tool.name}.${name}`).toBeTruthy();
    }
  });

  it('declares an output schema for every tool whose answer is data', () => {
    for (const tool of listed) expect(tool.outputSchema !== undefined, tool.name).toBe(!TEXT_TOOLS.has(tool.name));
  });

  it('marks deleting tools destructive and no read-only tool destructive', () => {
    for (const tool of listed) {
      expect(tool.annotations!.destructiveHint, tool.name).toBe(tool.name.includes('delete'));
      if (tool.annotations!.readOnlyHint) expect(tool.annotations!.idempotentHint, tool.name).toBe(true);
    }
  });
});
