import type { ResearchSource } from './api-types.ts';
import type { Style } from './style.ts';

/** `[S1]`, `[1]`, `[S1, S3]`: the inline markers of a research answer (same grammar as the server's). */
const CITATION = /\[\s*(S?\d+(?:\s*[,;]\s*S?\d+)*)\s*\]/gi;

function citedNumbers(answer: string): number[] {
  const found = new Set<number>();
  for (const m of answer.matchAll(CITATION)) for (const p of (m[1] ?? '').split(/[,;]/)) found.add(Number(p.trim().replace(/^s/i, '')));
  return [...found].sort((a, b) => a - b);
}

/**
 * The number to show for each source. The server lists the sources the answer cites in marker order (else
 * every retrieved source in marker order), so when the counts agree the k-th source is the k-th cited marker
 * and the block can reuse the answer's own numbers; otherwise sources are numbered 1..n.
 */
export function citationLabels(answer: string, count: number): number[] {
  const cited = citedNumbers(answer);
  return cited.length === count ? cited : Array.from({ length: count }, (_, i) => i + 1);
}

/** The citation block printed under an answer: `[1] filename › section`, numbered by each source's marker when the server sends one. */
export function citationBlock(answer: string, sources: ResearchSource[], s: Style): string[] {
  if (sources.length === 0) return [s.dim('(no sources)')];
  const guessed = citationLabels(answer, sources.length);
  const label = (src: ResearchSource, i: number) => src.marker ?? String(guessed[i]);
  return [s.bold('Sources'), ...sources.map((src, i) => `${s.cyan(`[${label(src, i)}]`)} ${src.filename} › ${src.sectionTitle}`)];
}
