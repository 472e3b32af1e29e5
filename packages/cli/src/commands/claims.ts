import type { Claim, ClaimMapItem } from '../api-types.ts';
import type { ApiClient } from '../client.ts';
import type { Command, Context } from '../command.ts';
import { CliError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { intFlag } from '../filters.ts';
import { sseMessages } from '../sse.ts';
import { oneLine, truncate } from '../style.ts';
import { arg, dispatch } from '../subcommand.ts';

const notFound = { notFoundHint: 'check the id; `dossier docs list` shows the documents of the collection' };

/** Every claim of a collection, from the claim map stream (cached on the server once computed); also the MCP tools'. */
export async function claimMap(api: ApiClient, id: string, signal?: AbortSignal): Promise<ClaimMapItem[]> {
  const res = await api.send('GET', `/collections/${id}/claims/map`, {
    headers: { accept: 'text/event-stream' },
    signal,
    notFoundHint: 'pass -c <collection-id> or run `dossier collections list`',
  });
  for await (const message of sseMessages(res.body as AsyncIterable<Uint8Array>)) {
    const event = message as { type: string; claims?: ClaimMapItem[]; message?: string };
    if (event.type === 'done') return event.claims ?? [];
    if (event.type === 'error') throw new CliError(`listing claims failed: ${event.message}`, EXIT.failure);
  }
  throw new CliError('the claim stream ended before its done event', EXIT.server, 'the server may have restarted; try again');
}

const collectionClaims = async (ctx: Context): Promise<ClaimMapItem[]> => claimMap(ctx.api(), await ctx.collection());

async function list(ctx: Context) {
  const minImportance = intFlag(ctx.values, 'min-importance', 1, 5) ?? 1;
  const documentId = typeof ctx.values.document === 'string' ? ctx.values.document : undefined;
  const claims: (Claim | ClaimMapItem)[] = documentId
    ? (await ctx.api().json<{ claims: Claim[] }>('GET', `/documents/${documentId}/claims?minImportance=${minImportance}`, notFound)).claims
    : (await collectionClaims(ctx)).filter((claim) => claim.importance >= minImportance);
  if (ctx.out.json) return ctx.out.value({ claims });
  if (claims.length === 0) return ctx.out.info('no claims yet: they are extracted after a document is ready when the project has a model provider');
  ctx.out.table(
    ['ID', 'IMP', 'DOCUMENT', 'SECTION', 'CLAIM'],
    claims.map((claim) => [
      claim.id,
      String(claim.importance),
      truncate('documentName' in claim ? claim.documentName : claim.documentId, 30),
      truncate(claim.sectionTitle, 30),
      truncate(oneLine(claim.text), 70),
    ]),
  );
}

async function get(ctx: Context) {
  const id = arg(ctx, 1, 'the claim id', 'dossier claims get <claim-id>');
  const claim = (await collectionClaims(ctx)).find((candidate) => candidate.id === id);
  if (!claim) throw new CliError(`no claim ${id} in this collection`, EXIT.notFound, 'run `dossier claims list` for the ids');
  if (ctx.out.json) return ctx.out.value(claim);
  ctx.out.line(claim.text);
  ctx.out.line(`  importance ${claim.importance} · ${claim.documentName} › ${claim.sectionTitle}`);
  ctx.out.line(claim.sourceText ? `  source: "${oneLine(claim.sourceText)}"` : '  source: (no verbatim passage found)');
}

export const claimsCommand: Command = {
  name: 'claims',
  summary: 'Factual claims extracted from the documents of a collection',
  usage: ['claims list [--document <id>] [--min-importance n]', 'claims get <claim-id>'],
  description:
    'Claims are extracted from every ready document when the project has a model provider; each has an importance\n' +
    '(1 to 5) and, when the model quoted its section faithfully, the verbatim source passage.',
  subcommands: [
    ['list', 'claims of the collection, or of one document with --document'],
    ['get <claim-id>', 'one claim with its document, section and source passage'],
  ],
  options: { document: { type: 'string' }, 'min-importance': { type: 'string' } },
  optionHelp: [
    ['--document <id>', 'list: only this document'],
    ['--min-importance <n>', 'list: only claims of at least this importance, 1 to 5 (default 1)'],
  ],
  examples: ['dossier claims list --min-importance 4', 'dossier claims list --document 3f2a… --json', 'dossier claims get 01a2…'],
  run: (ctx) => dispatch(ctx, 'claims', { list, get }),
};
