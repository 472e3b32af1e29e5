import { VISIBILITIES } from '@dossier/core/vocabulary';
import type { Collection } from '../api-types.ts';
import { COLLECTION_HINT, resolveCollection } from '../collection.ts';
import type { Command, Context } from '../command.ts';
import { usageError } from '../errors.ts';
import { choiceHelp, intFlag, many } from '../filters.ts';
import { bytes, compact, fields, shortDate } from '../format.ts';
import { lastCollection, rememberCollection } from '../state-file.ts';
import { arg, dispatch } from '../subcommand.ts';

/** The collection named by the positional argument after the subcommand, else the current one. */
async function target(ctx: Context): Promise<string> {
  const wanted = ctx.positionals[1];
  if (wanted === undefined) return ctx.collection();
  const id = await resolveCollection(() => ctx.api({ keyRequired: false }), wanted, Boolean(ctx.settings.apiKey.value));
  ctx.useCollection(id);
  return id;
}

const notFound = { notFoundHint: `${COLLECTION_HINT} to see the collections of this API key` };

function show(ctx: Context, c: Record<string, unknown>): void {
  if (ctx.out.json) ctx.out.value(c);
  else
    for (const l of fields(
      Object.entries(c).map(([k, v]) => [k, v === null ? '-' : compact(v)]),
      ctx.out.out,
    ))
      ctx.out.line(l);
}

async function list(ctx: Context) {
  const api = ctx.api();
  const cols = await api.json<Collection[]>('GET', '/collections');
  if (ctx.out.json) return ctx.out.value(cols);
  if (cols.length === 0) return ctx.out.info('no collections yet; create one with `dossier collections create <name>`');
  const current = lastCollection(ctx.env, api.baseUrl);
  ctx.out.table(
    ['', 'ID', 'NAME', 'VISIBILITY', 'EMBEDDING MODEL', 'CREATED'],
    cols.map((c) => [c.id === current ? ctx.out.out.green('*') : '', c.id, c.name, c.visibility, c.embeddingModel, shortDate(c.createdAt)]),
  );
}

async function get(ctx: Context) {
  const id = await target(ctx);
  show(ctx, await ctx.api({ keyRequired: false }).json<Collection>('GET', `/collections/${id}`, notFound));
}

async function stats(ctx: Context) {
  const id = await target(ctx);
  const s = await ctx.api({ keyRequired: false }).json<Record<string, unknown>>('GET', `/collections/${id}/stats`, notFound);
  if (ctx.out.json) return ctx.out.value(s);
  const pretty = (k: string, v: unknown) => (/Bytes$/.test(k) && typeof v === 'number' ? bytes(v) : compact(v));
  for (const l of fields(
    Object.entries(s).map(([k, v]) => [k, pretty(k, v)]),
    ctx.out.out,
  ))
    ctx.out.line(l);
}

const CREATE_FIELDS = { description: 'description', visibility: 'visibility', 'embedding-model': 'embeddingModel' } as const;

async function create(ctx: Context) {
  const name = arg(ctx, 1, 'the collection name', 'dossier collections create papers');
  const api = ctx.api();
  const body: Record<string, unknown> = { projectId: ctx.projectId(), name };
  for (const [flag, field] of Object.entries(CREATE_FIELDS)) if (typeof ctx.values[flag] === 'string') body[field] = ctx.values[flag];
  const chunkSize = intFlag(ctx.values, 'chunk-size', 64, 4096);
  const chunkOverlap = intFlag(ctx.values, 'chunk-overlap', 0, 512);
  if (chunkSize !== undefined) body.chunkSize = chunkSize;
  if (chunkOverlap !== undefined) body.chunkOverlap = chunkOverlap;
  const c = await api.json<Collection>('POST', '/collections', { json: body });
  ctx.useCollection(c.id);
  show(ctx, c);
  if (ctx.out.json) return;
  ctx.out.info(`created '${c.name}'; later commands use it when -c is omitted`);
  await noteSameName(ctx, c);
}

/** Names need not be unique (docs/decisions.md): say so when the new collection shares its name with others. */
async function noteSameName(ctx: Context, created: Collection): Promise<void> {
  const all = await ctx.api().json<Collection[]>('GET', '/collections');
  const others = all.filter((c) => c.id !== created.id && c.name.toLowerCase() === created.name.toLowerCase());
  if (others.length === 0) return;
  const ids = others.map((c) => c.id).join(', ');
  ctx.out.info(
    `note: ${others.length === 1 ? 'another collection is' : `${others.length} other collections are`} also named '${created.name}' (${ids}); -c '${created.name}' will ask for an id`,
  );
}

/** `--enable reranking` → enableReranking: true; the suppress-* switches keep their own names. */
const FEATURES: Record<string, string> = {
  summarization: 'enableSummarization',
  captioning: 'enableCaptioning',
  reranking: 'enableReranking',
  deduplication: 'enableDeduplication',
  'suppress-contradictions-by-metadata': 'suppressContradictionsByMetadata',
  'suppress-intra-document-contradictions': 'suppressIntraDocumentContradictions',
};
const CLEARABLE: Record<string, string> = { description: 'description', instructions: 'instructions', 'llm-model': 'llmModel' };

function updateBody(ctx: Context): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const flag of ['name', 'description', 'visibility', 'instructions', 'llm-model']) {
    if (typeof ctx.values[flag] === 'string') body[CLEARABLE[flag] ?? flag] = ctx.values[flag];
  }
  const chunkSize = intFlag(ctx.values, 'chunk-size', 64, 4096);
  const chunkOverlap = intFlag(ctx.values, 'chunk-overlap', 0, 512);
  if (chunkSize !== undefined) body.chunkSize = chunkSize;
  if (chunkOverlap !== undefined) body.chunkOverlap = chunkOverlap;
  for (const [flag, on] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    for (const f of many(ctx.values, flag)) {
      const field = FEATURES[f];
      if (!field) throw usageError(`unknown feature '${f}' for --${flag}`, `features: ${Object.keys(FEATURES).join(', ')}`);
      body[field] = on;
    }
  }
  for (const f of many(ctx.values, 'clear')) {
    const field = CLEARABLE[f];
    if (!field) throw usageError(`--clear takes ${Object.keys(CLEARABLE).join(', ')}, not '${f}'`);
    body[field] = null;
  }
  if (Object.keys(body).length === 0) throw usageError('nothing to update', 'e.g. dossier collections update --name "Papers 2025" --disable reranking');
  return body;
}

async function update(ctx: Context) {
  const body = updateBody(ctx);
  const id = await target(ctx);
  show(ctx, await ctx.api().json<Collection>('PATCH', `/collections/${id}`, { json: body, ...notFound }));
}

async function remove(ctx: Context) {
  const wanted = arg(ctx, 1, 'the collection to delete (an id or name; never implied)', 'dossier collections delete 0b6f…');
  const api = ctx.api();
  const id = await resolveCollection(() => api, wanted, true);
  await api.json('DELETE', `/collections/${id}`, notFound);
  if (lastCollection(ctx.env, api.baseUrl) === id) rememberCollection(ctx.env, api.baseUrl, null);
  if (ctx.out.json) ctx.out.value({ id, deleted: true });
  else ctx.out.info(`deleted collection ${id}`);
}

export const collectionsCommand: Command = {
  name: 'collections',
  summary: 'List, show, create, update and delete collections; show their statistics',
  usage: [
    'collections list',
    'collections get [collection]',
    'collections create <name> [options]',
    'collections update [collection] [options]',
    'collections delete <collection>',
    'collections stats [collection]',
  ],
  description:
    'A collection is given as an id or a unique name; get, update and stats default to the current collection (-c, or the last one used). Delete always needs it spelled out.',
  subcommands: [
    ['list', "collections of the API key's project (* marks the current one)"],
    ['get [collection]', 'every field of a collection'],
    ['create <name>', 'create a collection (needs the project id) and make it current'],
    ['update [collection]', 'change name, description, visibility, instructions, chunking of new documents, features'],
    ['delete <collection>', 'delete a collection and everything in it'],
    ['stats [collection]', 'document, section, chunk and storage counts'],
  ],
  options: {
    name: { type: 'string' },
    description: { type: 'string' },
    visibility: { type: 'string' },
    instructions: { type: 'string' },
    'llm-model': { type: 'string' },
    'embedding-model': { type: 'string' },
    'chunk-size': { type: 'string' },
    'chunk-overlap': { type: 'string' },
    enable: { type: 'string', multiple: true },
    disable: { type: 'string', multiple: true },
    clear: { type: 'string', multiple: true },
  },
  optionHelp: [
    ['--description <text>', 'create, update: a description'],
    [`--visibility <${choiceHelp(VISIBILITIES)}>`, 'create, update: public collections can be read without a key'],
    ['--chunk-size <tokens>', 'create, update: 64 to 4096 (default 512; update affects new documents only)'],
    ['--chunk-overlap <tokens>', 'create, update: 0 to 512 (default 64)'],
    ['--embedding-model <id>', "create: fixed for the collection's lifetime (default: the server's)"],
    ['--name <name>', 'update: rename'],
    ['--instructions <text>', 'update: guidance added to every research session on the collection'],
    ['--llm-model <id>', 'update: model for summaries and captions'],
    ['--enable/--disable <feature>', `update (repeatable): ${Object.keys(FEATURES).join(', ')}`],
    ['--clear <field>', 'update: set description, instructions or llm-model back to null'],
  ],
  examples: [
    'dossier collections create papers --description "Research papers"',
    'dossier collections list',
    'dossier collections update --instructions "Answer in French" --disable reranking',
    'dossier collections stats -c papers --json',
    'dossier collections delete papers',
  ],
  run: (ctx) => dispatch(ctx, 'collections', { list, get, create, update, delete: remove, stats }),
};
