import { readFile } from 'node:fs/promises';
import type { AgentRunView, AgentStreamEvent, AgentSyncResult, AgentView } from '@dossier/core';
import type { RequestOptions } from '../client.ts';
import type { Command, Context } from '../command.ts';
import { CliError, usageError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { shortDate } from '../format.ts';
import { sessionCall, sessionToken } from '../session.ts';
import { sseMessages } from '../sse.ts';
import { arg, dispatch } from '../subcommand.ts';

const notFound = { notFoundHint: 'check --org and --project, and `dossier agents list`' };

/** The org id (--org or SERVICE_ORG_ID): agents live under /orgs/:orgId/projects/:projectId. */
function orgId(ctx: Context): string {
  const org = typeof ctx.values.org === 'string' ? ctx.values.org : ctx.env.SERVICE_ORG_ID;
  if (!org) throw usageError('no org id', 'pass --org <id> or set SERVICE_ORG_ID (the org that owns the project)');
  return org;
}

const base = (ctx: Context): string => `/orgs/${orgId(ctx)}/projects/${ctx.projectId()}/agents`;

/** A request with the session as Bearer (agents are managed and invoked with a session, not the project API key). */
const call = <T>(ctx: Context, method: string, path: string, opts: RequestOptions = {}): Promise<T> =>
  sessionCall<T>(ctx, method, path, { ...opts, ...notFound });

const agentRow = (a: AgentView) => [
  a.slug,
  a.name,
  a.model,
  a.allowedCollectionIds ? a.allowedCollectionIds.length.toString() : 'all',
  a.outputSchema ? 'yes' : '',
  shortDate(a.updatedAt),
];
const AGENT_HEAD = ['SLUG', 'NAME', 'MODEL', 'COLLECTIONS', 'SCHEMA', 'UPDATED'];

async function list(ctx: Context) {
  const page = await call<{ agents: AgentView[]; hasMore: boolean }>(ctx, 'GET', `${base(ctx)}?limit=100`);
  if (ctx.out.json) return ctx.out.value(page);
  if (page.agents.length === 0) return ctx.out.info('no agents');
  ctx.out.table(AGENT_HEAD, page.agents.map(agentRow));
}

async function get(ctx: Context) {
  const slug = arg(ctx, 1, 'the agent slug', 'dossier agents get support-bot');
  const agent = await call<AgentView>(ctx, 'GET', `${base(ctx)}/${slug}`);
  if (ctx.out.json) return ctx.out.value(agent);
  ctx.out.table(AGENT_HEAD, [agentRow(agent)]);
  ctx.out.line(agent.systemPrompt);
}

/** The agent's fields from flags; --file reads a whole JSON body (flags override it). */
async function fields(ctx: Context): Promise<Record<string, unknown>> {
  const file = typeof ctx.values.file === 'string' ? (JSON.parse(await readFile(ctx.values.file, 'utf8')) as Record<string, unknown>) : {};
  const text = (name: string) => (typeof ctx.values[name] === 'string' ? { [name === 'system-prompt' ? 'systemPrompt' : name]: ctx.values[name] } : {});
  const collections = ctx.values.collections;
  return {
    ...file,
    ...text('name'),
    ...text('model'),
    ...text('description'),
    ...text('system-prompt'),
    ...(typeof ctx.values.timeout === 'string' ? { timeoutMs: Number(ctx.values.timeout) } : {}),
    ...(typeof collections === 'string' ? { allowedCollectionIds: collections === 'all' ? null : collections.split(',').map((id) => id.trim()) } : {}),
  };
}

async function create(ctx: Context) {
  const slug = arg(ctx, 1, 'the agent slug', "dossier agents create support-bot --name Support --model claude-sonnet-4-5 --system-prompt 'You answer…'");
  const body = { allowedCollectionIds: null, ...(await fields(ctx)), slug };
  const agent = await call<AgentView>(ctx, 'POST', base(ctx), { json: body });
  if (ctx.out.json) return ctx.out.value(agent);
  ctx.out.table(AGENT_HEAD, [agentRow(agent)]);
}

async function update(ctx: Context) {
  const slug = arg(ctx, 1, 'the agent slug', 'dossier agents update support-bot --model gpt-4o');
  const patch = await fields(ctx);
  if (typeof ctx.values.slug === 'string') Object.assign(patch, { slug: ctx.values.slug, confirmSlugChange: true });
  if (Object.keys(patch).length === 0)
    throw usageError('nothing to update', 'pass --name, --model, --system-prompt, --collections, --timeout, --slug or --file');
  const agent = await call<AgentView>(ctx, 'PATCH', `${base(ctx)}/${slug}`, { json: patch });
  if (ctx.out.json) return ctx.out.value(agent);
  ctx.out.table(AGENT_HEAD, [agentRow(agent)]);
}

async function remove(ctx: Context) {
  const slug = arg(ctx, 1, 'the agent slug', 'dossier agents delete support-bot');
  await call(ctx, 'DELETE', `${base(ctx)}/${slug}`);
  if (ctx.out.json) ctx.out.value({ slug, deleted: true });
  else ctx.out.info(`deleted agent ${slug} with its runs`);
}

async function runs(ctx: Context) {
  const slug = arg(ctx, 1, 'the agent slug', 'dossier agents runs support-bot [run-id] [--status failed]');
  const runId = ctx.positionals[2];
  if (runId) {
    const run = await call<AgentRunView>(ctx, 'GET', `${base(ctx)}/${slug}/runs/${runId}`);
    const steps = await call<unknown[]>(ctx, 'GET', `${base(ctx)}/${slug}/runs/${runId}/steps?limit=500`);
    if (ctx.out.json) return ctx.out.value({ ...run, steps });
    ctx.out.info(`${run.status} · ${run.iterationsUsed} turns · ${shortDate(run.createdAt)}`);
    return ctx.out.line(run.response);
  }
  const status = typeof ctx.values.status === 'string' ? `&status=${encodeURIComponent(ctx.values.status)}` : '';
  const page = await call<{ runs: AgentRunView[]; hasMore: boolean }>(ctx, 'GET', `${base(ctx)}/${slug}/runs?limit=50${status}`);
  if (ctx.out.json) return ctx.out.value(page);
  if (page.runs.length === 0) return ctx.out.info('no runs');
  ctx.out.table(
    ['RUN', 'STATUS', 'TURNS', 'SOURCES', 'STARTED', 'QUERY'],
    page.runs.map((r) => [r.id, r.status, String(r.iterationsUsed), String(r.sources.length), shortDate(r.createdAt), r.query.slice(0, 50)]),
  );
}

/** Print one stream event: tool calls and warnings on stderr, the answer on stdout, then a line with the outcome. */
function printEvent(ctx: Context, event: AgentStreamEvent, state: { answer: string }): void {
  if (event.type === 'tool_call')
    ctx.out.info(ctx.out.err.dim(`› ${event.tool}${event.collectionId ? ` (${event.collectionId.slice(0, 8)})` : ''}: ${JSON.stringify(event.args)}`));
  else if (event.type === 'tool_result') ctx.out.info(ctx.out.err.dim(`  ${event.summary}`));
  else if (event.type === 'warning') ctx.out.info(`warning: ${event.message}`);
  else if (event.type === 'chunk') {
    state.answer += event.content;
    ctx.out.write(event.content);
  } else if (event.type === 'done') {
    if (state.answer && !state.answer.endsWith('\n')) ctx.out.line();
    for (const source of event.sources) ctx.out.line(`[${source.marker}] ${source.filename} › ${source.sectionTitle}`);
    ctx.out.info(ctx.out.err.dim(`run ${event.runId}: ${event.status} after ${event.iterationsUsed} turns`));
  }
}

async function invoke(ctx: Context) {
  const slug = arg(ctx, 1, 'the agent slug', 'dossier agents invoke support-bot "How do refunds work?"');
  const query = arg(ctx, 2, 'the question', 'dossier agents invoke support-bot "How do refunds work?"');
  const body = { query, ...(typeof ctx.values.document === 'string' ? { documentId: ctx.values.document } : {}) };
  if (ctx.values['no-stream']) {
    const result = await call<AgentSyncResult>(ctx, 'POST', `${base(ctx)}/${slug}/invoke/sync`, { json: body, timeoutMs: null, signal: ctx.signal });
    if (ctx.out.json) ctx.out.value(result);
    else ctx.out.line(result.structuredOutput === undefined ? result.response : JSON.stringify(result.structuredOutput, null, 2));
    return result.status === 'succeeded' ? EXIT.ok : EXIT.failure;
  }
  const token = await sessionToken(ctx);
  const res = await ctx.api({ keyRequired: false }).send('POST', `${base(ctx)}/${slug}/invoke`, {
    json: body,
    auth: false,
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    timeoutMs: null,
    signal: ctx.signal,
    ...notFound,
  });
  const ndjson = ctx.out.json || !ctx.out.stdoutIsTTY;
  const state = { answer: '' };
  for await (const message of sseMessages(res.body as AsyncIterable<Uint8Array>)) {
    const event = message as AgentStreamEvent;
    if (ndjson) ctx.out.event(event);
    else printEvent(ctx, event, state);
    if (event.type === 'done') return event.status === 'succeeded' ? EXIT.ok : EXIT.failure;
  }
  throw new CliError('the agent stream ended before its done event', EXIT.server, 'the server may have restarted; `dossier agents runs <slug>` shows the run');
}

export const agentsCommand: Command = {
  name: 'agents',
  summary: 'Hosted agents: manage them, invoke one (streamed), read its runs',
  usage: [
    'agents list',
    'agents get <slug>',
    'agents create <slug> --name n --model m --system-prompt p [--collections id,id|all] [--timeout ms] [--file agent.json]',
    'agents update <slug> [--name …] [--model …] [--system-prompt …] [--collections …] [--slug new]',
    'agents delete <slug>',
    'agents invoke <slug> <question> [--document id] [--no-stream]',
    'agents runs <slug> [run-id] [--status s]',
  ],
  description:
    'Agents belong to a project of an org: pass --org (or SERVICE_ORG_ID) and --project. They need a session, not the API key:\n' +
    '`dossier login` (or --token / SERVICE_TOKEN, or SERVICE_EMAIL and SERVICE_PASSWORD). invoke streams like research: tool calls and\n' +
    'their results on stderr, the answer on stdout; piped or with --json, NDJSON events. It exits 1 unless the run succeeded.',
  subcommands: [
    ['list', "the project's agents"],
    ['get <slug>', 'one agent and its prompt'],
    ['create <slug>', 'save an agent (admin)'],
    ['update <slug>', 'change an agent (admin; --slug renames it)'],
    ['delete <slug>', 'delete an agent with its runs (admin)'],
    ['invoke <slug> <question>', 'run the agent'],
    ['runs <slug> [run-id]', 'its runs, newest first, or one run with its steps'],
  ],
  options: {
    org: { type: 'string' },
    token: { type: 'string' },
    name: { type: 'string' },
    model: { type: 'string' },
    description: { type: 'string' },
    'system-prompt': { type: 'string' },
    collections: { type: 'string' },
    timeout: { type: 'string' },
    file: { type: 'string' },
    slug: { type: 'string' },
    document: { type: 'string' },
    'no-stream': { type: 'boolean' },
    status: { type: 'string' },
  },
  optionHelp: [
    ['--org <id>', 'the org owning the project (default: $SERVICE_ORG_ID)'],
    ['--token <jwt>', 'a session token (default: $SERVICE_TOKEN)'],
    ['--collections <ids|all>', 'create/update: the allow-list, comma-separated, or all'],
    ['--timeout <ms>', 'create/update: the time limit (max 600000)'],
    ['--file <json>', 'create/update: fields from a JSON file (toolset, outputSchema …)'],
    ['--document <id>', 'invoke: scope every tool call to one document'],
    ['--no-stream', 'invoke: wait for the whole answer'],
    ['--status <s>', 'runs: only succeeded, failed, cancelled, timeout or running'],
  ],
  examples: [
    "dossier agents create support-bot --name Support --model claude-sonnet-4-5 --system-prompt 'Answer from the manuals.'",
    'dossier agents invoke support-bot "How do refunds work?"',
    'dossier agents runs support-bot --status failed',
  ],
  run: (ctx) => dispatch(ctx, 'agents', { list, get, create, update, delete: remove, invoke, runs }),
};
