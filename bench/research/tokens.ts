/**
 * Research token budget benchmark (issue 12): what one research run sends the model, per depth, with a scripted
 * model that keeps calling tools until the iteration cap (the worst case for cost). Prints per depth the model
 * calls, the input tokens of all calls together (cl100k, counted here from the requests the model received:
 * message text + 4 per message + the tool definitions) and the largest single request, and checks that the
 * answer's citations resolve. The same script runs against older code (it only uses APIs main has had since
 * research landed), which is how the "before" figures were taken. Usage: see bench/README.md.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDossier } from '@dossier/adapters';
import type { ChatMessage, ChatRequest, ResearchAnswer } from '@dossier/core';
import { countTokens } from '@dossier/core/internal';
import { ScriptedModel, type ScriptedTurn, scriptedResolver } from '@dossier/core/testing';
import { toAnthropicRequest } from '../../packages/adapters/src/providers/anthropic-wire.ts';

const REPO_ROOT = join(import.meta.dirname, '..', '..');
const DEPTHS = ['quick', 'balanced', 'deep', 'exhaustive'] as const;
type Depth = (typeof DEPTHS)[number];

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const DATA = arg('--beir', join(REPO_ROOT, '..', 'shared', 'eval', 'beir', 'scifact'));
const DOCS = Number(arg('--docs', '300'));
const LABEL = arg('--label', 'this branch');

const readJsonl = (file: string, limit: number) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .slice(0, limit)
    .map((l) => JSON.parse(l) as { _id: string; title?: string; text: string });

/** Input tokens of a request as the model receives it: message text, 4 per message, the tool definitions. */
function requestTokens(req: Omit<ChatRequest, 'signal'>): number {
  const text = (m: ChatMessage) =>
    m.role === 'assistant'
      ? m.content + (m.toolCalls?.length ? JSON.stringify(m.toolCalls) : '')
      : typeof m.content === 'string'
        ? m.content
        : JSON.stringify(m.content);
  return req.messages.reduce((n, m) => n + 4 + countTokens(text(m)), req.tools?.length ? countTokens(JSON.stringify(req.tools)) : 0);
}

/** Markers and section ids the model has been shown so far. */
const shown = (req: ChatRequest) => {
  const tool = req.messages.filter((m) => m.role === 'tool').map((m) => m.content as string);
  const markers = [...new Set(tool.flatMap((t) => [...t.matchAll(/\[(S\d+)\]/g)].map((m) => m[1]!)))];
  const sections = [...new Set(tool.flatMap((t) => [...t.matchAll(/section_id ([0-9a-f-]{36})/g)].map((m) => m[1]!)))];
  return { markers, sections };
};

/**
 * The scripted model: one tool call per turn until it may call none (the last turn, or tools withdrawn), then an
 * answer citing the first and the latest markers it saw. Deep and exhaustive also scan and read sections.
 */
function script(queries: string[], depth: Depth) {
  const read = new Set<string>();
  return (req: ChatRequest, index: number): ScriptedTurn => {
    const { markers, sections } = shown(req);
    if (!req.tools?.length || req.toolChoice === 'none') {
      const cited = [...new Set([...markers.slice(0, 3), ...markers.slice(-3)])];
      return { text: cited.map((m, i) => `Finding ${i + 1} [${m}].`).join(' ') || 'Nothing found.' };
    }
    const query = queries[index % queries.length]!;
    const sectionTools = depth === 'deep' || depth === 'exhaustive';
    const unread = sections.filter((s) => !read.has(s)).at(-1);
    if (sectionTools && index % 4 === 2 && unread) {
      read.add(unread);
      return { toolCalls: [{ name: 'get_section_chunks', arguments: { section_id: unread } }] };
    }
    if (sectionTools && index % 4 === 3) return { toolCalls: [{ name: 'scan_sections', arguments: { query, limit: 10 } }] };
    return { toolCalls: [{ name: 'search', arguments: { query, limit: 10 } }] };
  };
}

interface Figures {
  depth: Depth;
  calls: number;
  inputTokens: number;
  bodyTokens: number;
  largest: number;
  cited: number;
  sources: number;
  unresolved: number;
}

async function runDepth(
  dossier: Awaited<ReturnType<typeof createDossier>>,
  collectionId: string,
  queries: string[],
  depth: Depth,
  use: (m: ScriptedModel) => void,
): Promise<Figures> {
  const model = new ScriptedModel(script(queries, depth));
  use(model);
  const local = await dossier.local();
  const answer = (await dossier.research.runSync(local.access, collectionId, { q: queries[0]!, depth })) as ResearchAnswer & { unresolvedCitations?: string[] };
  const perCall = model.calls.map((c) => requestTokens(c.request));
  const bodies = model.calls.map((c) => countTokens(JSON.stringify(toAnthropicRequest({ ...c.request }, true))));
  const cited = new Set([...answer.answer.matchAll(/\[(S\d+)\]/g)].map((m) => m[1]));
  const resolved = new Set(answer.sources.map((s) => s.marker));
  return {
    depth,
    calls: model.calls.length,
    inputTokens: perCall.reduce((a, b) => a + b, 0),
    bodyTokens: bodies.reduce((a, b) => a + b, 0),
    largest: Math.max(...perCall),
    cited: cited.size,
    sources: answer.sources.length,
    unresolved: [...cited].filter((m) => !resolved.has(m)).length + (answer.unresolvedCitations?.length ?? 0),
  };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dossier-bench-research-'));
  let current: ScriptedModel | null = null;
  const models = {
    resolve: async (...a: Parameters<ReturnType<typeof scriptedResolver>['resolve']>) => scriptedResolver(current!).resolve(...a),
    hasProvider: async () => false, // no post-ready AI jobs: the scripted model serves research only
  };
  // Both spellings of the time limit: `timeoutMs` (before issue 12) and per-depth `timeLimitsMs` (after).
  const tenMinutes = 600_000;
  const research = { timeoutMs: tenMinutes, timeLimitsMs: { quick: tenMinutes, balanced: tenMinutes, deep: tenMinutes, exhaustive: tenMinutes } };
  const dossier = await createDossier({
    dataDir,
    embeddingModel: 'none',
    allowModelDownload: false,
    models,
    research: research as never,
    workers: { concurrency: 2 },
  });
  try {
    const local = await dossier.local();
    const collection = await local.collections.create({ name: 'SciFact' });
    const records = readJsonl(join(DATA, 'corpus.jsonl'), DOCS);
    for (const r of records)
      await local.documents.add(collection.id, { filename: `${r._id}.md`, bytes: new TextEncoder().encode(`# ${r.title ?? r._id}\n\n${r.text}\n`) });
    await dossier.idle();
    const queries = readJsonl(join(DATA, 'queries.jsonl'), 60).map((q) => q.text);
    process.stderr.write(`${LABEL}: ${records.length} SciFact abstracts, BM25 only, one tool call per turn until the cap\n`);
    const rows: Figures[] = [];
    for (const depth of DEPTHS) rows.push(await runDepth(dossier, collection.id, queries, depth, (m) => (current = m)));
    console.log(
      `| depth (${LABEL}) | model calls | input tokens per run | request-body tokens per run | largest request | markers cited | sources | unresolved |`,
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of rows) {
      console.log(
        `| ${r.depth} | ${r.calls} | ${r.inputTokens.toLocaleString('en')} | ${r.bodyTokens.toLocaleString('en')} | ${r.largest.toLocaleString('en')} | ${r.cited} | ${r.sources} | ${r.unresolved} |`,
      );
    }
  } finally {
    await dossier.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
