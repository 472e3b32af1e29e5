import { describe, expect, it } from 'vitest';
import { isGenericTitle } from '../../src/enrich/generic-title.ts';

describe('isGenericTitle', () => {
  it('treats empty and numbering-only titles as generic', () => {
    for (const t of ['', '   ', '1', '1.2', '2.3.1.', 'IV', 'B)', '(a)']) expect(isGenericTitle(t), t).toBe(true);
  });

  it('treats titles of at most three words, or under twelve characters, as short', () => {
    for (const t of ['Revenue', 'Costs and risks', 'Q3 results', '1.2 Revenue by region', 'IV. The big one', 'A b c d'])
      expect(isGenericTitle(t), t).toBe(true);
  });

  it('treats generic words and numbered placeholders as generic, whatever their case and numbering', () => {
    for (const t of [
      'Introduction',
      'OVERVIEW',
      '3. Summary',
      'Background:',
      'Details',
      'Notes',
      'Misc',
      'Untitled',
      'Section',
      'Part 2',
      'Slide 12',
      'Sheet1',
      'Page 7',
      'Appendix B',
    ]) {
      expect(isGenericTitle(t), t).toBe(true);
    }
  });

  it("treats the document's file name, alone or as a synthetic part, as generic", () => {
    const filename = 'Annual financial report of the northern region.pdf';
    expect(isGenericTitle('Annual financial report of the northern region', filename)).toBe(true);
    expect(isGenericTitle('Annual financial report of the northern region (part 3)', filename)).toBe(true);
    expect(isGenericTitle('Annual financial report of the northern region (part 3)', 'other.pdf')).toBe(false);
  });

  it('keeps descriptive titles of four words or more', () => {
    for (const t of [
      'How the quarterly billing reconciliation works',
      '2.1 Revenue growth in European markets',
      'Slide 12: revenue by region and quarter',
      'Introduction to the zephyr billing ledger',
    ]) {
      expect(isGenericTitle(t, 'deck.pptx'), t).toBe(false);
    }
  });
});
