import type { DocumentStore } from '../ports/document-store.ts';
import type { ContextPart } from '../context.ts';
import type { Collection, DocumentRecord, SectionRecord } from '../domain/types.ts';
import type { SectionRow } from '../ports/chunk-index.ts';
import { metadataPairs } from '../util/canonical-json.ts';

/** The section-text index row of a section (what scan searches), as the convert step writes it. */
export function sectionRow(doc: DocumentRecord, s: SectionRecord): SectionRow {
  return {
    id: s.id,
    documentId: doc.id,
    title: s.title,
    summary: s.summary ?? '',
    level: s.level,
    tags: doc.tags,
    metadataPairs: metadataPairs(doc.metadata),
    canonical: doc.canonical,
  };
}

/** Rewrite the scan rows of sections whose summary changed (any documents of the collection). */
export async function rewriteSectionRows(ctx: ContextPart<'index', DocumentStore>, c: Collection, sections: SectionRecord[]): Promise<void> {
  if (sections.length === 0) return;
  const docs = new Map((await ctx.store.getDocuments([...new Set(sections.map((s) => s.documentId))])).map((d) => [d.id, d]));
  const rows = sections.flatMap((s) => {
    const doc = docs.get(s.documentId);
    return doc ? [sectionRow(doc, s)] : [];
  });
  await ctx.index.upsertSections(c.id, rows);
  await ctx.index.refresh(c.id);
}
