import { pagesKey } from '../access.ts';
import type { ContextPart } from '../context.ts';
import { isDossierError } from '../domain/errors.ts';
import type { Collection } from '../domain/types.ts';
import type { z } from 'zod';
import type * as responses from '../responses.ts';

/** The pages a section spans (1-based), for documents that have pages (PDFs, scans). */
export type PageSpan = Required<Pick<z.output<typeof responses.section>, 'pageStart' | 'pageEnd'>>;

/** Page start offsets of a document, or null when it has no pages. */
export async function pageOffsetsOf(ctx: ContextPart<'blobs'>, c: Collection, documentId: string): Promise<number[] | null> {
  try {
    return JSON.parse(new TextDecoder().decode(await ctx.blobs.get(pagesKey(c, documentId)))) as number[];
  } catch (err) {
    if (isDossierError(err, 'not_found')) return null; // a document without pages
    throw err;
  }
}

/** The pages holding the characters [start, end) of the Markdown, given each page's start offset. */
export function pageSpan(offsets: number[], start: number, end: number): PageSpan {
  const pageAt = (pos: number) => {
    let page = 1;
    for (const [i, o] of offsets.entries()) if (o <= pos) page = i + 1;
    return page;
  };
  return { pageStart: pageAt(start), pageEnd: pageAt(Math.max(start, end - 1)) };
}
