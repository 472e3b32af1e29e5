import { z } from 'zod';
import type { ClaimRecord } from '../domain/claims.ts';
import type { SectionRecord } from '../domain/types.ts';
import type { EnrichRun } from '../enrich/run.ts';
import type { TokenUsage } from '../ports/model-provider.ts';
import { newId } from '../util/ids.ts';
import { alignQuote } from './align.ts';
import { extractionPrompt, RECORD_CLAIMS_TOOL } from './prompts.ts';
import { argumentList, toolArguments } from './structured.ts';

/** Most claims kept per document (bounds storage, the map and contradiction runs); the most important win. */
export const MAX_CLAIMS_PER_DOCUMENT = 200;
/** Most claims asked for per section. */
export const MAX_CLAIMS_PER_SECTION = 12;
/** Section text sent per call (~4,000 tokens); a longer section is cut. Sections are batched up to this size. */
export const MAX_BATCH_CHARS = 16_000;
/** Sections with less text than this hold no claim worth a call. */
const MIN_SECTION_CHARS = 40;
const MAX_OUTPUT_TOKENS = 4_096;
const MODEL_CALL_TIMEOUT_MS = 120_000;

interface SectionText {
  section: SectionRecord;
  text: string;
}

/** Sections packed into calls of at most MAX_BATCH_CHARS of text, in document order. */
export function batchSections(sections: SectionText[]): SectionText[][] {
  const batches: SectionText[][] = [];
  let current: SectionText[] = [];
  let size = 0;
  for (const entry of sections) {
    const text = entry.text.slice(0, MAX_BATCH_CHARS);
    if (current.length > 0 && size + text.length > MAX_BATCH_CHARS) {
      batches.push(current);
      current = [];
      size = 0;
    }
    current.push({ section: entry.section, text });
    size += text.length;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

const claimItem = z.object({
  section: z.coerce.number().int(),
  text: z.string().trim().min(3).max(1_000),
  importance: z.coerce.number(),
  sourceText: z.string().nullish(),
});

interface DraftClaim {
  section: SectionRecord;
  order: number;
  text: string;
  importance: number;
  sourceText: string | null;
}

/** The valid claims of one call's tool arguments, with their quotes aligned to the section text. */
function draftsOf(args: Record<string, unknown> | null, batch: SectionText[]): DraftClaim[] {
  const drafts: DraftClaim[] = [];
  const perSection = new Map<number, number>();
  for (const raw of argumentList(args, 'claims')) {
    const parsed = claimItem.safeParse(raw);
    if (!parsed.success) continue;
    const entry = batch[parsed.data.section - 1];
    if (!entry) continue;
    const count = (perSection.get(parsed.data.section) ?? 0) + 1;
    perSection.set(parsed.data.section, count);
    if (count > MAX_CLAIMS_PER_SECTION) continue;
    const importance = Math.min(5, Math.max(1, Math.round(parsed.data.importance)));
    drafts.push({
      section: entry.section,
      order: drafts.length,
      text: parsed.data.text,
      importance,
      sourceText: alignQuote(entry.text, parsed.data.sourceText),
    });
  }
  return drafts;
}

/** What one document's extraction cost. */
export interface ExtractionCost {
  calls: number;
  usage: TokenUsage;
}

/** One model call per batch; claims come back through the forced `record_claims` tool call. */
async function extractBatch(run: EnrichRun, batch: SectionText[], cost: ExtractionCost): Promise<DraftClaim[]> {
  const model = await run.model();
  const sections = batch.map((entry, index) => ({ number: index + 1, title: entry.section.title, text: entry.text }));
  const signal = AbortSignal.any([run.signal, AbortSignal.timeout(MODEL_CALL_TIMEOUT_MS)]);
  const result = await model.provider.chat({
    model: model.model,
    messages: extractionPrompt(run.doc.filename, sections, MAX_CLAIMS_PER_SECTION),
    tools: [RECORD_CLAIMS_TOOL],
    toolChoice: { tool: RECORD_CLAIMS_TOOL.name },
    maxTokens: MAX_OUTPUT_TOKENS,
    temperature: 0,
    signal,
  });
  cost.calls++;
  cost.usage.inputTokens += result.usage.inputTokens;
  cost.usage.outputTokens += result.usage.outputTokens;
  return draftsOf(toolArguments(result, RECORD_CLAIMS_TOOL.name), batch);
}

/** Keep the most important drafts up to the cap, then number them in document order. */
function finalClaims(run: EnrichRun, drafts: DraftClaim[]): ClaimRecord[] {
  const kept = [...drafts].sort((a, b) => b.importance - a.importance || a.order - b.order).slice(0, MAX_CLAIMS_PER_DOCUMENT);
  kept.sort((a, b) => a.section.position - b.section.position || a.order - b.order);
  const createdAt = new Date().toISOString();
  return kept.map((draft, position) => ({
    id: newId(),
    collectionId: run.collection.id,
    documentId: run.doc.id,
    sectionId: draft.section.id,
    sectionTitle: draft.section.title,
    text: draft.text,
    sourceText: draft.sourceText,
    importance: draft.importance,
    position,
    createdAt,
  }));
}

/**
 * The `enrich.claims` job's work: factual claims of every section of a ready document, in batched structured-output
 * calls, each claim's quote verified against its section. Replaces the document's claims (a re-run never
 * duplicates) and logs what the document cost. Returns the number of claims stored.
 */
export async function extractDocumentClaims(run: EnrichRun): Promise<number> {
  const { ctx, doc } = run;
  const markdown = new TextDecoder().decode(await ctx.blobs.get(doc.markdownStorageKey ?? ''));
  const sections = (await ctx.store.listSections(doc.id))
    .map((section) => ({ section, text: markdown.slice(section.markdownOffsetStart, section.markdownOffsetEnd).trim() }))
    .filter((entry) => entry.text.length >= MIN_SECTION_CHARS);
  const cost: ExtractionCost = { calls: 0, usage: { inputTokens: 0, outputTokens: 0 } };
  const drafts: DraftClaim[] = [];
  for (const batch of batchSections(sections)) {
    drafts.push(...(await extractBatch(run, batch, cost)).map((draft) => ({ ...draft, order: drafts.length + draft.order })));
  }
  if (!(await run.current())) return 0;
  const claims = finalClaims(run, drafts);
  await ctx.store.replaceDocumentClaims(doc.id, claims);
  ctx.log.info('claims extracted', { documentId: doc.id, claims: claims.length, calls: cost.calls, ...cost.usage });
  return claims.length;
}
