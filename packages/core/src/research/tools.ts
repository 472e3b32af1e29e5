import { z } from 'zod';
import type { ResearchSource } from '../domain/types.ts';
import { parseInput } from '../schemas.ts';
import type { QueryHit } from '../search/query.ts';
import type { AgentTool } from '../tool-loop/loop.ts';
import type { ResearchToolName } from './depths.ts';
import { sectionReadTool } from './section-tool.ts';
import { type ResearchToolContext, recoverable } from './tool-context.ts';
import { formatChunks, wrapUntrusted } from './untrusted.ts';

const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v ?? ''));

const hitSource = (h: QueryHit): ResearchSource => ({
  chunkId: h.chunk.id,
  content: h.chunk.content,
  documentId: h.document.id,
  filename: h.document.filename,
  sectionId: h.section.id,
  sectionTitle: h.section.title,
  sectionLevel: h.section.level,
  ...(h.span ? { span: h.span } : {}),
  ...(h.pages ? { pages: h.pages, regions: h.regions } : {}),
  ...(h.cells ? { cells: h.cells } : {}),
});

const searchArgs = z.object({ query: z.string().trim().min(1).max(2000), limit: z.coerce.number().int().min(1).max(20).optional() });

function searchTool(rc: ResearchToolContext): AgentTool {
  return {
    definition: {
      name: 'search',
      description: 'Hybrid keyword and semantic search over the collection. Returns passages, each under a source marker such as [S1] to cite.',
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'What to look for: keywords or a question' },
          limit: { type: 'integer', minimum: 1, maximum: 20, description: 'Passages to return (default 8)' },
        },
        required: ['query'],
        additionalProperties: false,
      },
    },
    describe: (args) => ({ query: text(args.query) }),
    run: (args) =>
      recoverable(async () => {
        const a = parseInput(searchArgs, args);
        const { results } = await rc.search.query(rc.access, rc.collection.id, { q: a.query, limit: a.limit ?? 8, ...rc.filter });
        const entries = results.map((h) => rc.sources.add(hitSource(h)));
        return formatChunks('search', entries, 'No passages matched. Try other words or a broader query.', rc.sources);
      }),
  };
}

const scanArgs = z.object({ query: z.string().trim().min(1).max(2000), limit: z.coerce.number().int().min(1).max(50).optional() });

function scanTool(rc: ResearchToolContext): AgentTool {
  return {
    definition: {
      name: 'scan_sections',
      description:
        'Full-text search over section titles and summaries, to find where a topic is discussed. Returns section ids; ' +
        'read a section with get_section_chunks before citing it.',
      parameters: {
        type: 'object',
        properties: { query: { type: 'string', description: 'Topic to look for' }, limit: { type: 'integer', minimum: 1, maximum: 50 } },
        required: ['query'],
        additionalProperties: false,
      },
    },
    describe: (args) => ({ query: text(args.query), tool: 'scan_sections' }),
    run: (args) =>
      recoverable(async () => {
        const a = parseInput(scanArgs, args);
        const { results } = await rc.search.scan(rc.access, rc.collection.id, { query: a.query, top_k: a.limit ?? 10, ...rc.filter });
        const lines = results.map((r) => {
          const head = `section_id ${r.section.id} | ${r.document.filename} › ${r.section.title} (level ${r.section.level})`;
          return r.section.summary ? `${head}\nSummary: ${r.section.summary}` : head;
        });
        return wrapUntrusted('scan_sections', lines.length ? lines.join('\n\n') : 'No sections matched.');
      }),
  };
}

/** The tools of a depth, in the order given. */
export function researchTools(names: readonly ResearchToolName[], rc: ResearchToolContext): AgentTool[] {
  const make: Record<ResearchToolName, (rc: ResearchToolContext) => AgentTool> = {
    search: searchTool,
    scan_sections: scanTool,
    get_section_chunks: sectionReadTool,
  };
  return names.map((n) => make[n](rc));
}
