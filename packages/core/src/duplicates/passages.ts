import type { PassageSpan, SharedPassage } from '../domain/duplicates.ts';
import type { WordPassage } from './align.ts';
import type { DuplicateProfile } from './fingerprints.ts';

/** Passages kept per member (the longest ones), so a group stays small however much two documents share. */
export const MAX_PASSAGES = 20;
/** Characters of a passage shown as its excerpt. */
export const EXCERPT_CHARS = 160;

/** The excerpt of a span: its first characters, whitespace collapsed, cut at a word with an ellipsis. */
export function excerptOf(markdown: string, start: number, end: number): string {
  const text = markdown
    .slice(start, Math.min(end, start + EXCERPT_CHARS * 2))
    .replace(/\s+/g, ' ')
    .trim();
  if (text.length <= EXCERPT_CHARS && end - start <= EXCERPT_CHARS * 2) return text;
  const cut = text.slice(0, EXCERPT_CHARS);
  const space = cut.lastIndexOf(' ');
  return `${space > EXCERPT_CHARS / 2 ? cut.slice(0, space) : cut}…`;
}

/** A word range [start, end) of a profile as a span of its Markdown. */
function spanOf(profile: DuplicateProfile, markdown: string, [first, after]: [number, number]): PassageSpan {
  const start = profile.starts[first] ?? 0;
  const end = profile.ends[after - 1] ?? start;
  return { start, end, excerpt: excerptOf(markdown, start, end) };
}

/** Word passages between a member (left) and the canonical (right) as spans in each one's Markdown. */
export function sharedPassages(
  passages: WordPassage[],
  member: { profile: DuplicateProfile; markdown: string },
  canonical: { profile: DuplicateProfile; markdown: string },
): SharedPassage[] {
  const kept = [...passages].sort((a, b) => b.left[1] - b.left[0] - (a.left[1] - a.left[0])).slice(0, MAX_PASSAGES);
  return kept
    .sort((a, b) => a.left[0] - b.left[0])
    .map((passage) => ({
      member: spanOf(member.profile, member.markdown, passage.left),
      canonical: spanOf(canonical.profile, canonical.markdown, passage.right),
    }));
}
