import { z } from 'zod';
import { notFound } from '../domain/errors.ts';
import { answersSearch, type DocumentRecord, type SectionRecord } from '../domain/types.ts';
import { parseInput } from '../schemas.ts';
import { isUuid } from '../util/ids.ts';
import type { AgentTool } from '../tool-loop/loop.ts';
import { documentMatches } from './document-filter.ts';
import { type ResearchToolContext, recoverable } from './tool-context.ts';
import { formatChunks } from './untrusted.ts';

/** Chunks shown per section read; a longer section is cut here and the model is told so. */
const MAX_SECTION_CHUNKS = 30;

const sectionArgs = z.object({ section_id: z.string().trim().min(1).max(100) });

/** The section when it is in the run's collection and its document is ready and passes the request's filters. */
async function sectionInScope(rc: ResearchToolContext, id: string): Promise<{ section: SectionRecord; doc: DocumentRecord }> {
  const [section] = isUuid(id) ? await rc.store.getSections([id]) : [];
  const doc = section && section.collectionId === rc.collection.id ? await rc.store.getDocument(section.documentId) : null;
  if (!section || !doc || !answersSearch(doc) || !documentMatches(doc, rc.filter)) {
    throw notFound(`Section ${id} (use a section_id from search or scan_sections results)`);
  }
  return { section, doc };
}

/** Read a whole section, chunk by chunk, each chunk citable under its own marker. */
export function sectionReadTool(rc: ResearchToolContext): AgentTool {
  return {
    definition: {
      name: 'get_section_chunks',
      description: 'Read a section in full, as passages in order, each under a source marker such as [S1] to cite.',
      parameters: {
        type: 'object',
        properties: { section_id: { type: 'string', description: 'A section_id from search or scan_sections results' } },
        required: ['section_id'],
        additionalProperties: false,
      },
    },
    describe: (args) => ({ query: typeof args.section_id === 'string' ? args.section_id : JSON.stringify(args.section_id ?? ''), tool: 'get_section_chunks' }),
    run: (args) =>
      recoverable(async () => {
        const { section_id } = parseInput(sectionArgs, args);
        const { section, doc } = await sectionInScope(rc, section_id);
        const chunks = await rc.search.sectionChunks(rc.access, section.id);
        const shown = chunks.slice(0, MAX_SECTION_CHUNKS);
        const entries = shown.map((c) =>
          rc.sources.add({
            chunkId: c.id,
            content: c.content,
            documentId: doc.id,
            filename: doc.filename,
            sectionId: section.id,
            sectionTitle: section.title,
            sectionLevel: section.level,
            ...(c.span ? { span: c.span } : {}),
            ...(c.pages ? { pages: c.pages, regions: c.regions } : {}),
            ...(c.cells ? { cells: c.cells } : {}),
          }),
        );
        const output = formatChunks('get_section_chunks', entries, 'The section has no text.', rc.sources);
        if (chunks.length <= shown.length) return output;
        const cut = `\n(Showing the first ${shown.length} of ${chunks.length} passages.)`;
        return { content: output.content + cut, condensed: output.condensed };
      }),
  };
}
