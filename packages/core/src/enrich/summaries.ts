import type { SectionRecord } from '../domain/types.ts';
import { plainText } from '../ingest/sectioner.ts';
import { isGenericTitle } from './generic-title.ts';
import { summaryPrompt } from './prompts.ts';
import { ask, type EnrichRun } from './run.ts';
import { sectionRow } from './section-rows.ts';

/** Most AI summaries one document gets; sections beyond keep their extractive summary (bounds model cost). */
export const MAX_SUMMARIES_PER_DOCUMENT = 500;
/** Sections with less body text than this keep their extractive summary: there is nothing to condense. */
const MIN_BODY_CHARS = 40;

/** Sections that should get an AI summary: generic or short title, none yet, and enough text to summarize. */
function targets(sections: SectionRecord[], filename: string, markdown: string): SectionRecord[] {
  const budget = MAX_SUMMARIES_PER_DOCUMENT - sections.filter((s) => s.summaryType === 'generated').length;
  return sections
    .filter((s) => s.summaryType !== 'generated' && isGenericTitle(s.title, filename))
    .filter((s) => plainText(markdown.slice(s.markdownOffsetStart, s.markdownOffsetEnd)).length - s.title.length >= MIN_BODY_CHARS)
    .slice(0, Math.max(0, budget));
}

/**
 * The `enrich.summaries` job's work: a 1–2 sentence AI summary for each section with a generic or short title
 * (enrich/generic-title.ts), stored as summaryType `generated` and written to the scan index section by section,
 * so a retry resumes where a failure stopped. Sections with good titles are never touched. Returns the count.
 */
export async function summarizeDocument(run: EnrichRun): Promise<number> {
  const { ctx, doc, collection } = run;
  const sections = await ctx.store.listSections(doc.id);
  if (!sections.some((s) => s.summaryType !== 'generated' && isGenericTitle(s.title, doc.filename))) return 0;
  const markdown = new TextDecoder().decode(await ctx.blobs.get(doc.markdownStorageKey ?? ''));
  let written = 0;
  for (const s of targets(sections, doc.filename, markdown)) {
    const summary = await ask(run, summaryPrompt(doc.filename, s.title, markdown.slice(s.markdownOffsetStart, s.markdownOffsetEnd)));
    if (!summary) continue;
    const now = await run.current();
    if (!now) break;
    await ctx.store.setGeneratedSummary(s.id, summary);
    await ctx.index.upsertSections(collection.id, [sectionRow(now, { ...s, summary, summaryType: 'generated' })]);
    written++;
  }
  if (written > 0) await ctx.index.refresh(collection.id);
  return written;
}
