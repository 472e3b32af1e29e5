import type { ResearchSource } from '../domain/types.ts';
import type { SourceRegistry } from './sources.ts';

/** `[S1]`, `[1]`, `[S1, S3]`, `[1; 2]`: one bracket may hold several markers; `S` is optional and case-insensitive. */
const CITATION = /\[\s*(S?\d+(?:\s*[,;]\s*S?\d+)*)\s*\]/gi;

const markerOf = (part: string): string => `S${Number(part.trim().replace(/^s/i, ''))}`;

/** Marker numbers cited inline in an answer, without duplicates, ascending. */
export function citedNumbers(answer: string): number[] {
  const found = new Set<number>();
  for (const m of answer.matchAll(CITATION)) {
    for (const part of (m[1] ?? '').split(/[,;]/)) found.add(Number(markerOf(part).slice(1)));
  }
  return [...found].sort((a, b) => a - b);
}

/** What the citation check made of an answer. */
export interface CheckedAnswer {
  /** The answer with every marker that resolves to no source removed (a bracket keeps its valid markers). */
  answer: string;
  /** The sources the answer cites, in marker order, each with its `marker`: exactly the cited ones. */
  sources: ResearchSource[];
  /** Markers the answer cites that no tool returned in this run (`S99`), in order; removed from `answer`. */
  unresolved: string[];
}

/** Remove unresolvable markers from the answer; a bracket left empty goes with the space before it. */
function stripUnresolved(answer: string, known: (marker: string) => boolean): string {
  return answer.replace(/ ?\[\s*(S?\d+(?:\s*[,;]\s*S?\d+)*)\s*\]/gi, (whole, inner: string) => {
    const parts = inner.split(/[,;]/).map((p) => p.trim());
    const kept = parts.filter((p) => known(markerOf(p)));
    if (kept.length === parts.length) return whole;
    if (kept.length === 0) return '';
    return `${whole.startsWith(' ') ? ' ' : ''}[${kept.join(', ')}]`;
  });
}

/**
 * Check an answer's citations against the sources of its run (issue 12: honest citations). Markers that resolve to
 * a retrieved chunk become the session's sources, each carrying its `marker` so that `[S5]` resolves even when S2–S4
 * were never cited; an answer that cites nothing has no sources. A marker no tool returned (an invented `[S99]`) is
 * removed from the saved answer and reported in `unresolved`.
 */
export function checkCitations(answer: string, registry: SourceRegistry): CheckedAnswer {
  const sources: ResearchSource[] = [];
  const unresolved: string[] = [];
  for (const n of citedNumbers(answer)) {
    const source = registry.get(`S${n}`);
    if (source) sources.push({ ...source, marker: `S${n}` });
    else unresolved.push(`S${n}`);
  }
  const cleaned = unresolved.length ? stripUnresolved(answer, (marker) => registry.get(marker) !== undefined) : answer;
  return { answer: cleaned, sources, unresolved };
}
