import type { ResearchSource } from '../domain/types.ts';
import type { SourceRegistry } from './sources.ts';

/** `[S1]`, `[1]`, `[S1, S3]`, `[1; 2]`: one bracket may hold several markers; `S` is optional and case-insensitive. */
const CITATION = /\[\s*(S?\d+(?:\s*[,;]\s*S?\d+)*)\s*\]/gi;

/** Marker numbers cited inline in an answer, without duplicates, ascending. */
export function citedNumbers(answer: string): number[] {
  const found = new Set<number>();
  for (const m of answer.matchAll(CITATION)) {
    for (const part of (m[1] ?? '').split(/[,;]/)) found.add(Number(part.trim().replace(/^s/i, '')));
  }
  return [...found].sort((a, b) => a - b);
}

/**
 * The sources of a session. Policy: the retrieved sources the answer cites, in marker order, each carrying its
 * `marker` so that `[S5]` in the answer resolves even when S2–S4 were never cited; markers that no tool
 * returned are ignored. When the answer cites none of them, every retrieved source in marker order, so an
 * uncited answer still shows what it was based on.
 */
export function sessionSources(answer: string, registry: SourceRegistry): ResearchSource[] {
  const marked = (marker: string, source: ResearchSource): ResearchSource => ({ ...source, marker });
  const cited = citedNumbers(answer).flatMap((n) => {
    const source = registry.get(`S${n}`);
    return source ? [marked(`S${n}`, source)] : [];
  });
  return cited.length > 0 ? cited : registry.all().map((e) => marked(e.marker, e.source));
}
