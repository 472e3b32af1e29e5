import type { ResearchSource } from './api-types.ts';
import type { Style } from './style.ts';

/** `[S1]`, `[1]`, `[S1, S3]`: the inline markers of a research answer (same grammar as the server's). */
const CITATION = /\[\s*(S?\d+(?:\s*[,;]\s*S?\d+)*)\s*\]/gi;

/** The markers an answer cites (`S3` for `[S3]` or `[3]`), without duplicates, in the order first cited. */
export function citedMarkers(answer: string): string[] {
  const found = new Set<string>();
  for (const m of answer.matchAll(CITATION)) for (const p of (m[1] ?? '').split(/[,;]/)) found.add(`S${Number(p.trim().replace(/^s/i, ''))}`);
  return [...found];
}

/**
 * The sources the answer cites, in marker order. The server sends exactly those, each with its `marker`; an older
 * server sent every retrieved source when the answer cited none, so sources are kept only when their marker is
 * cited. Sources without markers (older still) are all kept, numbered 1..n.
 */
export function citedSources(answer: string, sources: ResearchSource[]): { label: string; source: ResearchSource }[] {
  if (sources.some((s) => s.marker === undefined)) return sources.map((source, i) => ({ label: String(i + 1), source }));
  const cited = new Set(citedMarkers(answer));
  return sources.filter((s) => cited.has(s.marker ?? '')).map((source) => ({ label: source.marker ?? '', source }));
}

/** Where a source is in its original, for a person to check: `p. 2`, `pp. 2–3`; empty without pages. */
export function pagesLabel(pages: number[] | undefined): string {
  if (!pages?.length) return '';
  const first = Math.min(...pages);
  const last = Math.max(...pages);
  return first === last ? ` (p. ${first})` : ` (pp. ${first}–${last})`;
}

/** Where a source is: its pages (PDFs, slides), else its sheet and cells (`Fleet B2:D5`, spreadsheets), else nothing. */
export function whereLabel(at: { pages?: number[]; cells?: { sheet: string; range: string }[] }): string {
  const pages = pagesLabel(at.pages);
  if (pages || !at.cells?.length) return pages;
  return ` (${at.cells.map((c) => `${c.sheet} ${c.range}`).join(', ')})`;
}

/**
 * The citation block printed under an answer: exactly the cited sources, `[S1] filename › section`; a line saying
 * so when the answer cites none; and a warning line for cited markers that resolve to no source (issue 12).
 */
export function citationBlock(answer: string, sources: ResearchSource[], s: Style, unresolved: string[] = []): string[] {
  const cited = citedSources(answer, sources);
  const lines = cited.length
    ? [s.bold('Sources'), ...cited.map(({ label, source }) => `${s.cyan(`[${label}]`)} ${source.filename} › ${source.sectionTitle}${whereLabel(source)}`)]
    : [s.dim('The answer cites no sources.')];
  if (unresolved.length) {
    const list = unresolved.map((m) => `[${m}]`).join(', ');
    lines.push(s.yellow(`${list} ${unresolved.length === 1 ? 'matches' : 'match'} no retrieved source: removed from the saved answer.`));
  }
  return lines;
}
