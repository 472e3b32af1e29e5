import { describe, expect, it } from 'vitest';
import { DEFAULT_GROUPING, groupClaims } from '../../src/claims/grouping.ts';
import { scopedApart, survives } from '../../src/claims/judge.ts';
import type { ClaimRecord } from '../../src/domain/claims.ts';

const claims = [
  { text: 'The Lyon plant employs 1,200 people.', documentId: 'a' },
  { text: 'The Lyon plant employs 800 people.', documentId: 'b' },
  { text: 'Quarterly revenue rose by 12 percent in 2024.', documentId: 'a' },
  { text: 'Quarterly revenue fell by 3 percent in 2024.', documentId: 'c' },
  { text: 'The cafeteria serves vegetarian lunches on Fridays.', documentId: 'b' },
  { text: 'Marketing hired two designers.', documentId: 'c' },
];

describe('groupClaims', () => {
  it('puts claims about the same subject from different documents in one group and leaves unrelated claims out', async () => {
    const groups = await groupClaims(claims);
    const sets = groups.map((group) => group.map((index) => claims[index]!.text).sort());
    expect(sets).toContainEqual([claims[0]!.text, claims[1]!.text].sort());
    expect(sets).toContainEqual([claims[2]!.text, claims[3]!.text].sort());
    expect(groups.flat()).not.toContain(4);
    expect(groups.flat()).not.toContain(5);
  });

  it('never links claims of one document when cross-document only, and caps the group size', async () => {
    const same = Array.from({ length: 30 }, (_, index) => ({ text: `The Lyon plant employs ${index} people.`, documentId: index < 15 ? 'x' : 'y' }));
    const groups = await groupClaims(same, { ...DEFAULT_GROUPING, maxGroupSize: 4 });
    for (const group of groups) {
      expect(group.length).toBeLessThanOrEqual(4);
      expect(new Set(group.map((index) => same[index]!.documentId)).size).toBe(2);
    }
    expect(await groupClaims(same.slice(0, 15))).toEqual([]);
  });

  it('makes each claim a member of at most one group (judge calls stay below the number of claims)', async () => {
    const many = Array.from({ length: 200 }, (_, index) => ({
      text: `Site ${index % 20} produces ${index} tonnes of steel a year.`,
      documentId: `d${index % 7}`,
    }));
    const groups = await groupClaims(many);
    const members = groups.flat();
    expect(new Set(members).size).toBe(members.length);
    expect(groups.length).toBeLessThanOrEqual(many.length / 2);
  });
});

const claim = (documentId: string): ClaimRecord => ({
  id: documentId,
  collectionId: 'c',
  documentId,
  sectionId: 's',
  sectionTitle: 'S',
  text: 't',
  sourceText: null,
  importance: 3,
  position: 0,
  createdAt: '',
});

describe('suppression rules', () => {
  it('drops conflicts within one document when suppressIntraDocument is on', () => {
    const entries = [
      { claim: claim('a'), documentName: 'a', metadata: {} },
      { claim: { ...claim('a'), id: 'a2' }, documentName: 'a', metadata: {} },
    ];
    expect(survives(entries, { suppressIntraDocument: true, suppressByMetadata: false })).toBe(false);
    expect(survives(entries, { suppressIntraDocument: false, suppressByMetadata: false })).toBe(true);
  });

  it('drops conflicts between documents scoped apart by a shared metadata key, keeps those where a document lacks the key', () => {
    expect(scopedApart({ version: '3' }, { version: '4' })).toBe(true);
    expect(scopedApart({ version: '3' }, { team: 'x' })).toBe(false);
    expect(scopedApart({ version: '3' }, { version: '3' })).toBe(false);
    const rules = { suppressIntraDocument: true, suppressByMetadata: true };
    const v3 = { claim: claim('a'), documentName: 'a', metadata: { version: '3' } };
    const v4 = { claim: claim('b'), documentName: 'b', metadata: { version: '4' } };
    const unscoped = { claim: claim('c'), documentName: 'c', metadata: {} };
    expect(survives([v3, v4], rules)).toBe(false);
    expect(survives([v3, v4, unscoped], rules)).toBe(true);
    expect(survives([v3, v4], { ...rules, suppressByMetadata: false })).toBe(true);
  });
});
