import type { QueryHit } from '../api-types.ts';
import type { Command } from '../command.ts';
import { FILTER_HELP, FILTER_OPTIONS, filterBody, intFlag, textArgument } from '../filters.ts';
import { oneLine, truncate } from '../style.ts';
import { whereLabel } from '../citations.ts';

export const queryCommand: Command = {
  name: 'query',
  summary: 'Hybrid search: the best-matching chunks, with document and section',
  usage: ['query <text> [--limit n] [--tag t]... [--any-tag t]... [--metadata k=v]... [--full]'],
  description: 'Ranks chunks by keyword (BM25) and semantic search fused together, then reranks them. Higher scores are better.',
  options: { ...FILTER_OPTIONS, limit: { type: 'string', short: 'n' }, full: { type: 'boolean' } },
  optionHelp: [
    ['-n, --limit <n>', 'how many chunks, 1 to 50 (default 10)'],
    ...FILTER_HELP,
    ['--full', 'print each chunk whole instead of a one-line excerpt'],
  ],
  examples: [
    'dossier query "how did revenue change in 2024?"',
    'dossier query "latency budget" -n 3 --tag design --metadata year=2024',
    'dossier query "pricing" --json | jq ".[0].chunk.content"',
  ],
  async run(ctx) {
    const q = textArgument(ctx.positionals, 'query text', 'dossier query "what causes X?"');
    const id = await ctx.collection();
    const limit = intFlag(ctx.values, 'limit', 1, 50);
    const hits = await ctx.api({ keyRequired: false }).json<QueryHit[]>('POST', `/collections/${id}/query`, {
      json: { q, ...(limit ? { limit } : {}), ...filterBody(ctx.values) },
      notFoundHint: 'pass -c <collection-id> or run `dossier collections list`',
    });
    if (ctx.out.json) return ctx.out.value(hits);
    if (hits.length === 0) return ctx.out.info('no matching chunks (are the documents ready? `dossier docs list` shows their status)');
    const s = ctx.out.out;
    const width = (ctx.out.streams.stdout.columns ?? 100) - 6;
    const scoreWidth = Math.max(...hits.map((h) => h.score.toFixed(4).length)); // scores line up, 8.0428 under 22.7676
    hits.forEach((h, i) => {
      ctx.out.line(
        `${s.bold(String(i + 1).padStart(2))}  ${s.dim(h.score.toFixed(4).padStart(scoreWidth))}  ${s.cyan(h.document.filename)} › ${h.section.title}${whereLabel(h)}`,
      );
      const body = ctx.values.full ? h.chunk.content.trim().replace(/\n/g, '\n    ') : truncate(oneLine(h.chunk.content), Math.max(40, width));
      ctx.out.line(`    ${body}`);
    });
  },
};
