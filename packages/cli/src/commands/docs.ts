import type { Chunk, Document, Section } from '../api-types.ts';
import type { ApiClient } from '../client.ts';
import type { Command, Context } from '../command.ts';
import { isUuid } from '../collection.ts';
import { CliError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { intFlag, many } from '../filters.ts';
import { bytes, compact, fields, num, shortDate, status } from '../format.ts';
import { oneLine, truncate } from '../style.ts';
import { arg, dispatch } from '../subcommand.ts';
import { waitForDocument } from '../wait.ts';

const DOC_HINT = 'run `dossier docs list` to see the documents of the current collection';
const notFound = { notFoundHint: DOC_HINT };
/** The 404 hint for a document argument: a file name given where the id belongs is the usual slip. */
const docNotFound = (id: string) => (isUuid(id) ? notFound : { notFoundHint: `'${id}' is not a document id (ids are UUIDs); ${DOC_HINT}` });
const docArg = (ctx: Context, what = 'the document id') => arg(ctx, 1, what, `dossier docs ${ctx.positionals[0]} <document-id>`);

async function list(ctx: Context) {
  const id = await ctx.collection();
  const limit = intFlag(ctx.values, 'limit', 1, 500) ?? 100;
  const offset = intFlag(ctx.values, 'offset', 0, Number.MAX_SAFE_INTEGER) ?? 0;
  const st = typeof ctx.values.status === 'string' ? ctx.values.status : undefined;
  const tags = many(ctx.values, 'tag');
  const anyTags = many(ctx.values, 'any-tag');
  const page = await ctx.api({ keyRequired: false }).json<{ documents: Document[]; total: number }>('GET', `/collections/${id}/documents`, {
    query: { limit, offset, status: st, ...(tags.length ? { tags } : {}), ...(anyTags.length ? { anyTags } : {}) },
    notFoundHint: 'pass -c <collection-id> or run `dossier collections list`',
  });
  if (ctx.out.json) return ctx.out.value(page);
  const s = ctx.out.out;
  ctx.out.table(
    ['ID', 'FILENAME', 'STATUS', 'SECTIONS', 'CHUNKS', 'SIZE', 'CREATED'],
    page.documents.map((d) => [
      d.id,
      truncate(d.filename, 48),
      status(s, d.status),
      num(d.sectionCount),
      num(d.chunkCount),
      bytes(d.fileSizeBytes),
      shortDate(d.createdAt),
    ]),
  );
  const last = offset + page.documents.length;
  if (page.total > last || offset > 0)
    ctx.out.info(`showing ${page.documents.length ? offset + 1 : 0}–${last} of ${page.total}${page.total > last ? `; --offset ${last} for more` : ''}`);
}

async function get(ctx: Context) {
  const id = docArg(ctx);
  const d = await ctx.api({ keyRequired: false }).json<Document>('GET', `/documents/${id}`, docNotFound(id));
  if (ctx.out.json) return ctx.out.value(d);
  for (const l of fields(
    Object.entries(d).map(([k, v]) => [k, v === null ? '-' : compact(v)]),
    ctx.out.out,
  ))
    ctx.out.line(l);
}

async function markdown(ctx: Context) {
  const id = docArg(ctx);
  // 404 has two causes: no such document (the hint to find one), or one whose processing is not complete.
  const res = await ctx
    .api({ keyRequired: false })
    .send('GET', `/documents/${id}/markdown`, docNotFound(id))
    .catch((err: unknown) => {
      if (err instanceof CliError && err.exitCode === EXIT.notFound && /not complete|not processed|not ready/i.test(err.message)) {
        throw new CliError(err.message, err.exitCode, `the Markdown exists once the document is ready; \`dossier docs wait ${id}\` waits for that`);
      }
      throw err;
    });
  const md = await res.text();
  if (ctx.out.json) return ctx.out.value({ documentId: id, markdown: md });
  ctx.out.write(md.endsWith('\n') ? md : `${md}\n`);
}

const sectionsOf = (api: ApiClient, id: string) => api.json<Section[]>('GET', `/documents/${id}/sections`, docNotFound(id));

async function sections(ctx: Context) {
  const list = await sectionsOf(ctx.api({ keyRequired: false }), docArg(ctx));
  if (ctx.out.json) return ctx.out.value(list);
  ctx.out.table(
    ['#', 'ID', 'CHUNKS', 'TITLE'],
    list.map((sec) => [String(sec.position), sec.id, String(sec.chunkCount), `${'  '.repeat(Math.max(0, sec.level - 1))}${truncate(sec.title, 70)}`]),
  );
}

function printChunks(ctx: Context, title: string, chunks: Chunk[]): void {
  const s = ctx.out.out;
  for (const c of chunks) {
    ctx.out.line(s.bold(`── ${title} · chunk ${c.position} · ${c.tokenCount} tokens · ${c.id}`));
    ctx.out.line(c.content.trimEnd());
    ctx.out.line();
  }
}

async function chunks(ctx: Context) {
  const api = ctx.api({ keyRequired: false });
  const sectionId = typeof ctx.values.section === 'string' ? ctx.values.section : undefined;
  if (sectionId) {
    const list = await api.json<Chunk[]>('GET', `/sections/${sectionId}/chunks`, {
      notFoundHint: 'run `dossier docs sections <document-id>` to see section ids',
    });
    if (ctx.out.json) return ctx.out.value(list);
    return printChunks(ctx, `section ${sectionId}`, list);
  }
  const id = arg(ctx, 1, 'a document id (or --section <section-id>)', 'dossier docs chunks <document-id>');
  const out: { section: Pick<Section, 'id' | 'title' | 'level' | 'position'>; chunks: Chunk[] }[] = [];
  for (const sec of await sectionsOf(api, id)) {
    const list = await api.json<Chunk[]>('GET', `/sections/${sec.id}/chunks`, notFound);
    out.push({ section: { id: sec.id, title: sec.title, level: sec.level, position: sec.position }, chunks: list });
    if (!ctx.out.json) printChunks(ctx, sec.title, list);
  }
  if (ctx.out.json) ctx.out.value(out);
}

async function images(ctx: Context) {
  const id = docArg(ctx);
  const list = await ctx
    .api({ keyRequired: false })
    .json<{ id: string; position: number; mimeType: string; sectionId: string | null; caption: string | null }[]>(
      'GET',
      `/documents/${id}/images`,
      docNotFound(id),
    );
  if (ctx.out.json) return ctx.out.value(list);
  if (list.length === 0) return ctx.out.info('this document has no images');
  ctx.out.table(
    ['#', 'ID', 'TYPE', 'CAPTION'],
    list.map((i) => [String(i.position), i.id, i.mimeType, i.caption ? truncate(oneLine(i.caption), 80) : '-']),
  );
}

async function remove(ctx: Context) {
  docArg(ctx, 'one or more document ids');
  const api = ctx.api();
  for (const id of ctx.positionals.slice(1)) {
    await api.json('DELETE', `/documents/${id}`, docNotFound(id));
    if (ctx.out.json) ctx.out.event({ id, deleted: true });
    else ctx.out.info(`deleted ${id}`);
  }
}

async function wait(ctx: Context) {
  docArg(ctx, 'one or more document ids');
  const api = ctx.api({ keyRequired: false });
  const docs = await Promise.all(ctx.positionals.slice(1).map((id) => waitForDocument(api, id, ctx.signal)));
  if (ctx.out.json) ctx.out.value(docs.length === 1 ? docs[0] : docs);
  else
    ctx.out.table(
      ['ID', 'FILENAME', 'STATUS', 'SECTIONS', 'CHUNKS', 'ERROR'],
      docs.map((d) => [d.id, d.filename, status(ctx.out.out, d.status), num(d.sectionCount), num(d.chunkCount), d.errorMessage ?? '']),
    );
  return docs.some((d) => d.status === 'error') ? EXIT.failure : EXIT.ok;
}

export const docsCommand: Command = {
  name: 'docs',
  summary: 'List documents; show one, its Markdown, sections, chunks or images; delete; wait until ready',
  usage: [
    'docs list [-c collection] [--status s] [--tag t]... [--any-tag t]... [--limit n] [--offset n]',
    'docs get <document-id>',
    'docs markdown <document-id>',
    'docs sections <document-id>',
    'docs chunks <document-id> | --section <section-id>',
    'docs images <document-id>',
    'docs delete <document-id>...',
    'docs wait <document-id>...',
  ],
  subcommands: [
    ['list', 'documents of the collection, newest first (100 per page)'],
    ['get <id>', 'every field of a document'],
    ['markdown <id>', 'the converted Markdown (once ready)'],
    ['sections <id>', 'the table of contents: sections in order, indented by level'],
    ['chunks <id>', 'every chunk of every section; with --section, of one section'],
    ['images <id>', 'images found in the document, with captions'],
    ['delete <id>...', 'delete documents and their stored files'],
    ['wait <id>...', 'block until each document is ready or in error (exit 1 if any is in error)'],
  ],
  options: {
    status: { type: 'string' },
    tag: { type: 'string', multiple: true },
    'any-tag': { type: 'string', multiple: true },
    limit: { type: 'string' },
    offset: { type: 'string' },
    section: { type: 'string' },
  },
  optionHelp: [
    ['--status <status>', 'list: only pending, uploading, processing, sectioned, embedded, ready or error'],
    ['--tag <name>', 'list: only documents carrying ALL these tags (repeatable)'],
    ['--any-tag <name>', 'list: only documents carrying at least ONE of these tags (repeatable)'],
    ['--limit <n>', 'list: page size, 1 to 500 (default 100)'],
    ['--offset <n>', 'list: skip this many'],
    ['--section <section-id>', 'chunks: the chunks of this section only'],
  ],
  examples: [
    'dossier docs list --status error',
    'dossier docs list --tag finance --tag 2024',
    'dossier docs markdown 3f2a… > report.md',
    'dossier docs sections 3f2a…',
    'dossier docs chunks --section 9c1e… --json | jq -r ".[].content"',
    'dossier docs wait 3f2a… 77b0…',
  ],
  run: (ctx) => dispatch(ctx, 'docs', { list, get, markdown, sections, chunks, images, delete: remove, wait }),
};
