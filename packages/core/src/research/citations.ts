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
 * The sources of a session. Policy: the retrieved sources the answer cites, in marker order (so the k-th
 * cited marker is the k-th source); markers that no tool returned are ignored. When the answer cites none of
 * them, every retrieved source in marker order, so an uncited answer still shows what it was based on.
 */
export function sessionSources(answer: string, registry: SourceRegistry): ResearchSource[] {
  const cited = citedNumbers(answer).flatMap((n) => registry.get(`S${n}`) ?? []);
  return cited.length > 0 ? cited : registry.all().map((e) => e.source);
}
