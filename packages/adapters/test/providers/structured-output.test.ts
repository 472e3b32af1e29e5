import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDossier, type Dossier } from '../../src/create-dossier.ts';
import { json, startWireServer, type WireServer } from './wire-server.ts';

/**
 * Claim extraction and contradiction judging through each provider's wire protocol: the real SDK clients talk to a
 * local server speaking the provider's API, which answers the forced structured-output tool calls.
 */

const REPORT = '# Fleet\n\nThe company operates 42 delivery vans in Leeds.\n';
const UPDATE = '# Fleet update\n\nThe company operates 35 delivery vans in Leeds after the sale.\n';

const extraction = (text: string, sourceText: string) => ({ claims: [{ section: 1, text, importance: 4, sourceText }] });
const judgement = {
  topicSummary: 'Leeds vans',
  contradictions: [{ claims: [1, 2], severity: 'high', explanation: 'Van counts differ.', suggestedInstruction: 'Use the fleet update.' }],
};

const anthropicToolAnswer = (name: string, input: unknown) =>
  json(200, {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-haiku-4-5',
    stop_reason: 'tool_use',
    stop_sequence: null,
    content: [{ type: 'tool_use', id: 'toolu_1', name, input }],
    usage: { input_tokens: 300, output_tokens: 80 },
  });
const openaiToolAnswer = (name: string, input: unknown) =>
  json(200, {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4.1-mini',
    choices: [
      {
        index: 0,
        finish_reason: 'tool_calls',
        message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name, arguments: JSON.stringify(input) } }] },
      },
    ],
    usage: { prompt_tokens: 300, completion_tokens: 80, total_tokens: 380 },
  });

const PROVIDERS = [
  { name: 'anthropic' as const, answer: anthropicToolAnswer, choice: (tool: string) => ({ type: 'tool', name: tool }) },
  { name: 'openai' as const, answer: openaiToolAnswer, choice: (tool: string) => ({ type: 'function', function: { name: tool } }) },
];

let server: WireServer | null = null;
let dossier: Dossier | null = null;
let dataDir = '';
afterEach(async () => {
  await dossier?.close();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe.each(PROVIDERS)('claims through the $name wire protocol', ({ name, answer, choice }) => {
  it('forces the structured-output tool, stores the extracted claims and the judged contradiction', async () => {
    server = await startWireServer();
    dataDir = mkdtempSync(join(tmpdir(), 'dossier-claims-wire-'));
    dossier = await createDossier({
      dataDir,
      embeddingModel: 'none',
      allowModelDownload: false,
      workers: { concurrency: 1, pollMs: 20 },
      providers: { [name]: { apiKey: 'sk-test-claims-0000', baseUrl: server.url } },
    });
    const local = await dossier.local();
    const collection = await local.collections.create({ name: 'Fleet' });
    await local.collections.update(collection.id, { enableSummarization: false, enableCaptioning: false });

    server.reply(answer('record_claims', extraction('The company operates 42 delivery vans in Leeds.', 'operates 42 delivery vans in Leeds')));
    const first = await local.documents.add(collection.id, { filename: 'fleet.md', bytes: new TextEncoder().encode(REPORT) });
    await local.documents.wait(first.id, 20_000);
    await dossier.idle();
    server.reply(answer('record_claims', extraction('The company operates 35 delivery vans in Leeds.', 'operates 35 delivery vans in Leeds')));
    const second = await local.documents.add(collection.id, { filename: 'fleet-update.md', bytes: new TextEncoder().encode(UPDATE) });
    await local.documents.wait(second.id, 20_000);
    await dossier.idle();

    const [request] = server.requests;
    expect(request?.body.tool_choice).toEqual(choice('record_claims'));
    expect(JSON.stringify(request?.body)).toContain('42 delivery vans');
    const { claims } = await local.claims.documentClaims(first.id, 1);
    expect(claims).toEqual([
      expect.objectContaining({
        text: 'The company operates 42 delivery vans in Leeds.',
        sourceText: 'operates 42 delivery vans in Leeds',
        sectionTitle: 'Fleet',
      }),
    ]);

    server.reply(answer('report_contradictions', judgement));
    await local.claims.detectContradictions(collection.id);
    await dossier.idle();
    expect(server.requests.at(-1)?.body.tool_choice).toEqual(choice('report_contradictions'));
    expect(await local.claims.latestContradictionRun(collection.id)).toMatchObject({ status: 'completed', contradictionsFound: 1 });
    const { items } = await local.claims.listContradictions(collection.id, { status: 'active', limit: 20 });
    expect(items[0]).toMatchObject({ severity: 'high', explanation: 'Van counts differ.', suggestedInstruction: 'Use the fleet update.' });
  });
});
