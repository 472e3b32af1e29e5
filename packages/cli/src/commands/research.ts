import type { ResearchEvent, ResearchSource } from '../api-types.ts';
import { citationBlock } from '../citations.ts';
import type { Command, Context } from '../command.ts';
import { CliError, usageError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { FILTER_HELP, FILTER_OPTIONS, filterBody, textArgument } from '../filters.ts';
import { sseMessages } from '../sse.ts';

const NO_MODEL_HINT =
  'give the project its own key (`dossier provider-keys set anthropic --name team < key.txt`), or start the server with DOSSIER_ANTHROPIC_API_KEY, DOSSIER_OPENAI_API_KEY or DOSSIER_OLLAMA_CHAT_MODEL';
const DEPTHS = ['quick', 'balanced', 'deep', 'exhaustive'];
const notFound = { notFoundHint: 'pass -c <collection-id> or run `dossier collections list`' };

function body(ctx: Context, q: string): Record<string, unknown> {
  const depth = ctx.values.depth;
  if (typeof depth === 'string' && !DEPTHS.includes(depth)) throw usageError(`--depth must be ${DEPTHS.join(', ')}, not '${depth}'`);
  return { q, ...(depth ? { depth } : {}), ...(typeof ctx.values.model === 'string' ? { model: ctx.values.model } : {}), ...filterBody(ctx.values) };
}

function printSources(ctx: Context, answer: string, sources: ResearchSource[]): void {
  ctx.out.line();
  for (const l of citationBlock(answer, sources, ctx.out.out)) ctx.out.line(l);
}

/** --no-stream: the buffered answer; JSON as the API returns it, else the answer and its citation block. */
async function sync(ctx: Context, collection: string, json: Record<string, unknown>): Promise<number> {
  const res = await ctx.api().json<{ answer: string; sessionId: string; sources: ResearchSource[] }>('POST', `/collections/${collection}/research/sync`, {
    json,
    timeoutMs: null,
    signal: ctx.signal,
    ...notFound,
  });
  if (ctx.out.json) ctx.out.value(res);
  else {
    ctx.out.line(res.answer.trimEnd());
    printSources(ctx, res.answer, res.sources);
  }
  return EXIT.ok;
}

/** What the stream printer does with each event. */
interface Printer {
  event(e: ResearchEvent): void;
}

/** On a terminal: tool calls on stderr, the answer streamed to stdout, then the citation block. */
function terminalPrinter(ctx: Context): Printer {
  let answer = '';
  return {
    event(e) {
      if (e.type === 'tool_call') ctx.out.info(ctx.out.err.dim(`› ${e.tool ?? 'search'}: ${e.query}`));
      else if (e.type === 'chunk') {
        answer += e.content;
        ctx.out.write(e.content);
      } else if (e.type === 'done') {
        if (!answer.endsWith('\n')) ctx.out.line();
        printSources(ctx, answer, e.sources);
      } else if (answer && !answer.endsWith('\n')) ctx.out.line();
    },
  };
}

async function stream(ctx: Context, collection: string, json: Record<string, unknown>): Promise<number> {
  const res = await ctx.api().send('POST', `/collections/${collection}/research`, {
    json,
    headers: { accept: 'text/event-stream' },
    timeoutMs: null,
    signal: ctx.signal,
    ...notFound,
  });
  // Spec: streams to stdout on a terminal, then a citation block; piped (or --json), NDJSON, one object per event.
  const ndjson = ctx.out.json || !ctx.out.stdoutIsTTY;
  const printer: Printer = ndjson ? { event: (e) => ctx.out.event(e) } : terminalPrinter(ctx);
  for await (const message of sseMessages(res.body as AsyncIterable<Uint8Array>)) {
    const e = message as ResearchEvent;
    printer.event(e);
    if (e.type === 'done') return EXIT.ok;
    if (e.type === 'error') throw new CliError(`research failed: ${e.message}`, EXIT.failure, 'try again; `dossier provider-keys list` shows whether the project has its own model key');
  }
  throw new CliError('the research stream ended before a done or error event', EXIT.server, 'the server may have restarted; try again');
}

export const researchCommand: Command = {
  name: 'research',
  summary: 'Agentic research: a cited answer, streamed as it is written',
  usage: ['research <question> [--depth d] [--model id] [--stream | --no-stream] [filters]'],
  description:
    'A model searches the collection in several steps and writes an answer citing its sources.\n' +
    'On a terminal the answer streams to stdout (tool calls on stderr), then a citation block `[S1] filename › section` (the markers the answer cites).\n' +
    'Piped or with --json the stream is NDJSON, one object per event: tool_call, chunk, done (sessionId, sources) or error.\n' +
    '--no-stream waits for the whole answer (with --json: {answer, sessionId, sources}).',
  options: {
    ...FILTER_OPTIONS,
    depth: { type: 'string', short: 'd' },
    model: { type: 'string', short: 'm' },
    stream: { type: 'boolean' },
    'no-stream': { type: 'boolean' },
  },
  optionHelp: [
    ['-d, --depth <depth>', 'quick (5 steps), balanced (10, default), deep (20, section tools), exhaustive (50)'],
    ['-m, --model <id>', 'model id, e.g. claude-sonnet-4-6, gpt-4.1, ollama:llama3.1 (default: the server\'s for the depth)'],
    ['--stream', 'stream the answer as it is written (the default)'],
    ['--no-stream', 'wait for the whole answer'],
    ...FILTER_HELP,
  ],
  examples: [
    'dossier research "How did revenue change in 2024, and why?"',
    'dossier research "Compare the two pricing models" --depth deep',
    'dossier research "What are the open risks?" | jq -c "select(.type == \\"done\\") | .sources"',
    'dossier research "Summarise the findings" --no-stream --json',
  ],
  async run(ctx) {
    if (ctx.values.stream && ctx.values['no-stream']) throw usageError('--stream and --no-stream contradict each other');
    const q = textArgument(ctx.positionals, 'question', 'dossier research "How did revenue change?"');
    const json = body(ctx, q);
    ctx.api(); // a key is needed: say so before anything else
    const collection = await ctx.collection();
    try {
      return await (ctx.values['no-stream'] ? sync(ctx, collection, json) : stream(ctx, collection, json));
    } catch (err) {
      if (err instanceof CliError && /no model provider/i.test(err.message)) throw new CliError(err.message, err.exitCode, NO_MODEL_HINT);
      throw err;
    }
  },
};
