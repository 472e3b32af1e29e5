import type { ScanHit } from '../api-types.ts';
import type { Command } from '../command.ts';
import { FILTER_HELP, FILTER_OPTIONS, filterBody, intFlag, textArgument } from '../filters.ts';
import { oneLine, truncate } from '../style.ts';

export const scanCommand: Command = {
  name: 'scan',
  summary: 'Section scan: sections whose title or summary match, without chunk text',
  usage: ['scan <text> [--limit n] [--tag t]... [--any-tag t]... [--metadata k=v]...'],
  description: 'Full-text search over section titles and summaries: a quick map of where a topic is discussed.',
  options: { ...FILTER_OPTIONS, limit: { type: 'string', short: 'n' } },
  optionHelp: [['-n, --limit <n>', 'how many sections, 1 to 100 (default 20)'], ...FILTER_HELP],
  examples: ['dossier scan "pricing"', 'dossier scan "security review" -n 5 --json'],
  async run(ctx) {
    const query = textArgument(ctx.positionals, 'search text', 'dossier scan "pricing"');
    const id = await ctx.collection();
    const topK = intFlag(ctx.values, 'limit', 1, 100);
    const { results } = await ctx.api({ keyRequired: false }).json<{ results: ScanHit[] }>('POST', `/collections/${id}/sections/scan`, {
      json: { query, ...(topK ? { top_k: topK } : {}), ...filterBody(ctx.values) },
      notFoundHint: 'pass -c <collection-id> or run `dossier collections list`',
    });
    if (ctx.out.json) return ctx.out.value({ results });
    if (results.length === 0) return ctx.out.info('no matching sections');
    const s = ctx.out.out;
    ctx.out.table(
      ['#', 'SCORE', 'DOCUMENT', 'SECTION', 'SUMMARY'],
      results.map((r, i) => [
        String(i + 1),
        r.score.toFixed(4),
        s.cyan(truncate(r.document.filename, 40)),
        truncate(`${'#'.repeat(r.section.level)} ${r.section.title}`, 50),
        truncate(oneLine(r.section.summary ?? ''), 60),
      ]),
    );
  },
};
