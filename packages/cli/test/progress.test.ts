import { describe, expect, it } from 'vitest';
import { truncateMiddle } from '../src/style.ts';
import { displayLabels } from '../src/upload/progress.ts';

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
});
