import type { ContextPart } from '../context.ts';
import type { DuplicateGroupRecord } from '../domain/duplicates.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import { invalid, notFound } from '../domain/errors.ts';
import { alignProfiles } from './align.ts';
import { sharedPassages } from './passages.ts';
import { markdownOf, profileOf } from './texts.ts';
import type { z } from 'zod';
import type * as responses from '../responses.ts';

/** Two members of a group compared (GET …/duplicates/:groupId/compare): how much each covers of the other and where. */
export type DuplicateComparison = z.output<typeof responses.duplicateComparison>;

const round = (value: number): number => Math.round(value * 10_000) / 10_000;

/**
 * Compare any two members of a group, aligned now by the same passage finder detection uses (so two near
 * duplicates of one canonical can be read side by side too, not only a member against the canonical).
 */
export async function compareMembers(
  ctx: ContextPart<'blobs', DocumentStore>,
  group: DuplicateGroupRecord,
  leftId: string,
  rightId: string,
): Promise<DuplicateComparison> {
  if (leftId === rightId) throw invalid('left and right must be two different members');
  const members = [leftId, rightId].map((id) => group.members.find((member) => member.documentId === id));
  if (members.some((member) => !member)) throw invalid('left and right must both be members of this group');
  const docs = await Promise.all([leftId, rightId].map((id) => ctx.store.getDocument(id)));
  const [leftDoc, rightDoc] = docs;
  if (!leftDoc || !rightDoc) throw notFound('Document');
  const [leftSide, rightSide] = await Promise.all(
    [leftDoc, rightDoc].map(async (doc) => ({ profile: await profileOf(ctx, doc), markdown: await markdownOf(ctx, doc) })),
  );
  const alignment = alignProfiles(leftSide!.profile, rightSide!.profile);
  const passages = sharedPassages(alignment.passages, leftSide!, rightSide!).map((p) => ({ left: p.member, right: p.canonical }));
  return {
    left: { documentId: leftDoc.id, filename: leftDoc.filename },
    right: { documentId: rightDoc.id, filename: rightDoc.filename },
    leftCoverage: round(alignment.leftCoverage),
    rightCoverage: round(alignment.rightCoverage),
    passages,
  };
}
