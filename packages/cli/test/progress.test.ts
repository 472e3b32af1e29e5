import { describe, expect, it } from 'vitest';
import { printable, truncate, truncateMiddle, visibleWidth } from '../src/style.ts';
import { displayLabels, fitRows, type Row } from '../src/upload/progress.ts';

describe('the live upload display names files so they can be told apart', () => {
  it('leaves out the folder every file shares, keeping subfolders below it', () => {
    expect(displayLabels(['/work/docs/a.md', '/work/docs/sub/b.md', '/work/docs/test.docx'])).toEqual(['a.md', 'sub/b.md', 'test.docx']);
    expect(displayLabels(['/work/docs/test1.md', '/work/docs/test2.md'])).toEqual(['test1.md', 'test2.md']); // cut at a /, not mid-name
    expect(displayLabels(['docs/a.md', 'docs2/b.md'])).toEqual(['docs/a.md', 'docs2/b.md']); // nothing shared up to a /
    expect(displayLabels(['- (notes.md)', '/work/a.md'])).toEqual(['- (notes.md)', '/work/a.md']);
    expect(displayLabels(['/work/docs/only.md'])).toEqual(['/work/docs/only.md']); // one file: as given
  });

  it('shortens a long name in the middle, so its start and its end (extension) stay', () => {
    expect(truncateMiddle('markitdown__test_with_comment.docx', 20)).toBe('markitdow…mment.docx');
    expect(truncateMiddle('markitdown__test_with_comment.docx', 20)).toHaveLength(20);
    expect(truncateMiddle('short.md', 20)).toBe('short.md');
    expect(truncateMiddle('abcdef', 1)).toBe('a');
  });

  it('counts CJK and emoji as two columns, never splits an emoji sequence, and shows bidi controls instead of obeying them', () => {
    expect(visibleWidth('Résumé 日本.md')).toBe(14);
    expect(visibleWidth('👩‍👩‍👧.md')).toBe(5);
    expect(truncate('日本語のファイル名.md', 9)).toBe('日本語の…');
    expect(visibleWidth(truncateMiddle('報告書 📈 2024 年度 まとめ.txt', 16))).toBeLessThanOrEqual(16);
    expect(truncateMiddle('👩‍👩‍👧👩‍👩‍👧👩‍👩‍👧👩‍👩‍👧', 5)).toBe('👩‍👩‍👧…👩‍👩‍👧');
    expect(printable('invoice \u202Egpj.exe')).toBe('invoice <U+202E>gpj.exe');
    expect(printable('Résumé 日本 📈.md')).toBe('Résumé 日本 📈.md');
  });
});

describe('the live upload display on a small terminal (issue 12)', () => {
  const rows = (states: string[]): Row[] => states.map((state, i) => ({ label: `f${i}.md`, state, detail: '' }));

  it('shows every row when they fit', () => {
    expect(fitRows(rows(['ready', 'sending']), 5)).toEqual({ shown: rows(['ready', 'sending']), finished: 0, hidden: 0 });
  });

  it('folds finished rows into a count and says how many open rows it hides', () => {
    const all = rows(['ready', 'failed', 'sending', 'queued', 'queued', 'processing', 'queued']);
    const fit = fitRows(all, 4);
    expect(fit.finished).toBe(2);
    expect(fit.shown.map((r) => r.label)).toEqual(['f2.md', 'f3.md']);
    expect(fit.hidden).toBe(3);
    expect(1 + fit.shown.length + (fit.hidden ? 1 : 0)).toBeLessThanOrEqual(4);
  });
});
