import { RESEARCH_DEPTH_NAMES } from '@dossier/core/vocabulary';
import type { ResearchEvent, ResearchSource } from '../api-types.ts';
import { citationBlock } from '../citations.ts';
import { httpError } from '../client.ts';
import type { Command, Context } from '../command.ts';
import { CliError, usageError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { choiceFlag, FILTER_HELP, FILTER_OPTIONS, filterBody, textArgument } from '../filters.ts';
import { sseMessages } from '../sse.ts';

const NO_MODEL_HINT =
  'give the project its own key (`dossier provider-keys set anthropic --name team < key.txt`), or start the server with DOSSIER_ANTHROPIC_API_KEY, DOSSIER_OPENAI_API_KEY or DOSSIER_OLLAMA_CHAT_MODEL';
const notFound = { notFoundHint: 'pass -c <collection-id> or run `dossier collections list`' };

function body(ctx: Context, q: string): Record<string, unknown> {
  const depth = choiceFlag(ctx.values, 'depth', RESEARCH_DEPTH_NAMES);
  return { q, ...(depth ? { depth } : {}), ...(typeof ctx.values.model === 'string' ? { model: ctx.values.model } : {}), ...filterBody(ctx.values) };
}

function printSources(ctx: Context, answer: string, sources: ResearchSource[], unresolved: string[] = []): void {
  ctx.out.line();
  for (const l of citationBlock(answer, sources, ctx.out.out, unresolved)) ctx.out.line(l);
}

/** The HTTP status /research/sync answers a failed run's error code with (the server's table, for the codes a run ends with). */
const SYNC_STATUS: Partial<Record<string, number>> = {
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  timeout: 408,
  rate_limited: 429,
  internal: 500,
  missing_index: 500,
  unavailable: 503,
  provider_error: 503,
};

/**
 * The error of a stream that ended with an `error` event: the same CliError (message, hint, exit code) that
 * --no-stream gives for the same failure, so scripts see one exit code either way (issue 12: 4 for a provider's 503).
 */
function streamError(e: Extract<ResearchEvent, { type: 'error' }>): CliError {
  const status = e.code ? SYNC_STATUS[e.code] : undefined;
  if (status) {
    const same = httpError(status, e.message, true);
    return new CliError(`research failed: ${e.message}`, same.exitCode, same.hint);
  }
  return new CliError(`research failed: ${e.message}`, EXIT.failure, 'try again; `dossier provider-keys list` shows whether the project has its own model key');
}

/** --no-stream: the buffered answer; JSON as the API returns it, else the answer and its citation block. */
async function sync(ctx: Context, collection: string, json: Record<string, unknown>): Promise<number> {
  const res = await ctx
    .api()
    .json<{ answer: string; sessionId: string; sources: ResearchSource[]; unresolvedCitations?: string[] }>(
      'POST',
      `/collections/${collection}/research/sync`,
      {
        json,
        timeoutMs: null,
        signal: ctx.signal,
        ...notFound,
      },
    );
  if (ctx.out.json) ctx.out.value(res);
  else {
    ctx.out.line(res.answer.trimEnd());
    printSources(ctx, res.answer, res.sources, res.unresolvedCitations);
  }
  return EXIT.ok;
}

/** What the stream printer does with each event, and with the server's progress comments. */
interface Printer {
  event(e: ResearchEvent): void;
  progress?(text: string): void;
}

/** Comments that are only connection keep-alives, with nothing to show. */
const SILENT_COMMENTS = new Set(['ping', 'connected']);

/**
 * A status line on stderr (a terminal only): what the run waits on, redrawn in place as the server's comments
 * arrive, and erased before anything else is printed, so the user sees the run is alive (issue 12).
 */
function statusLine(ctx: Context) {
  let shown = false;
  const clear = () => {
    if (shown) ctx.out.streams.stderr.write('\r\x1b[2K');
    shown = false;
  };
  return {
    show(text: string) {
      if (!ctx.out.stderrIsTTY || SILENT_COMMENTS.has(text)) return;
      const width = Math.max(20, (ctx.out.streams.stderr.columns || 80) - 1);
      ctx.out.streams.stderr.write(`\r\x1b[2K${ctx.out.err.dim(`… ${text}`.slice(0, width))}`);
      shown = true;
    },
    clear,
  };
}

/** On a terminal: tool calls and a progress line on stderr, the answer streamed to stdout, then the citation block. */
function terminalPrinter(ctx: Context): Printer {
  let answer = '';
  const status = statusLine(ctx);
  return {
    progress: (text) => {
      if (answer === '') status.show(text);
    },
    event(e) {
      status.clear();
      if (e.type === 'tool_call') ctx.out.info(ctx.out.err.dim(`› ${e.tool ?? 'search'}: ${e.query}`));
      else if (e.type === 'chunk') {
        answer += e.content;
        ctx.out.write(e.content);
      } else if (e.type === 'done') {
        if (!answer.endsWith('\n')) ctx.out.line();
        printSources(ctx, answer, e.sources, e.unresolvedCitations);
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
  for await (const message of sseMessages(res.body as AsyncIterable<Uint8Array>, printer.progress)) {
    const e = message as ResearchEvent;
    printer.event(e);
    if (e.type === 'done') return EXIT.ok;
    if (e.type === 'error') throw streamError(e);
  }
  throw new CliError('the research stream ended before a done or error event', EXIT.server, 'the server may have restarted; try again');
}

export const researchCommand: Command = {
  name: 'research',
  summary: 'Agentic research: a cited answer, streamed as it is written',
  usage: ['research <question> [--depth d] [--model id] [--stream | --no-stream] [filters]'],
  description:
    'A model searches the collection in several steps and writes an answer citing its sources.\n' +
    'On a terminal the answer streams to stdout (tool calls and a line saying what the run waits on, on stderr), then a\n' +
    'citation block `[S1] filename › section` listing exactly the sources the answer cites (or saying it cites none),\n' +
    'and a warning for cited markers that match no retrieved source (the server removes them from the saved answer).\n' +
    'Piped or with --json the stream is NDJSON, one object per event: tool_call, chunk, done (sessionId, sources) or error.\n' +
    '--no-stream waits for the whole answer (with --json: {answer, sessionId, sources}). A failed run exits with the same\n' +
    'code streamed or not: 4 when the model provider or the server failed, 1 for a time limit or a rate limit.',
  options: {
    ...FILTER_OPTIONS,
    depth: { type: 'string', short: 'd' },
    model: { type: 'string', short: 'm' },
    stream: { type: 'boolean' },
    'no-stream': { type: 'boolean' },
  },
  optionHelp: [
    ['-d, --depth <depth>', 'quick (5 steps), balanced (10, default), deep (20, section tools), exhaustive (50)'],
    ['-m, --model <id>', "model id, e.g. claude-sonnet-4-6, gpt-4.1, ollama:llama3.1 (default: the server's for the depth)"],
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
