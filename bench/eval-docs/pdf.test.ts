import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { convertBytes, pagesOf } from '../../packages/adapters/test/converters/pdf-helpers.ts';
import { EVAL_DOCS as DOCS } from './docs.ts';

const load = (name: string): Uint8Array => new Uint8Array(readFileSync(join(DOCS, name)));
const suite = 'the PDF converter on the shared evaluation PDFs with a text layer';

/** GFM tables of a Markdown text, as blocks. */
const tables = (md: string): string[] => md.split('\n\n').filter((b) => /^\|.*\|\n\|( --- \|)+/.test(b));

describe(suite, () => {
  it('reads the AutoGen paper page: numbered heading, paragraphs with line-end hyphens joined, footnote kept, page number dropped', async () => {
    const r = await convertBytes(load('markitdown__test.pdf'), 'test.pdf');
    expect(r.markdown).toMatch(/^# 1 Introduction\n/);
    expect(r.markdown).toContain('There are at least three reasons confirming its general feasibility');
    expect(r.markdown).toContain('AutoGen uses a generic design of agents that can leverage LLMs, human inputs');
    expect(r.markdown).toMatch(/^2 Conversation programming\. A fundamental insight/m);
    expect(r.markdown).toMatch(/^3 We refer to Appendix A for a detailed discussion\.$/m);
    expect(r.markdown).not.toMatch(/^2$/m);
    expect(r.pageOffsets).toEqual([0]);
    expect(tables(r.markdown)).toHaveLength(0);
  });

  it('reads the multipage repair estimate: letterhead, key/value and totals tables, the logo once, three page starts', async () => {
    const r = await convertBytes(load('markitdown__REPAIR-2022-INV-001_multipage.pdf'), 'repair.pdf');
    expect(r.markdown).toMatch(/^# ZAVA AUTO REPAIR$/m);
    expect(r.markdown).toContain('Certified Collision Repair  \n123 Main Street, Redmond, WA 98052  \nPhone: (425) 000-0000');
    expect(r.markdown).toContain('| Insured name | Gabriel Diaz | Year | 2022 |');
    expect(r.markdown).toContain('| Insured name | Bruce Wayne | Year | 2025 |');
    expect(r.markdown).toContain('|  |  | Hours | Rate | Cost |');
    expect(r.markdown).toContain('| Body Labor |  | 2 | 150 | 300 |');
    expect(r.markdown).toContain('| GRAND TOTAL |  |  |  | 211,522 |');
    expect(tables(r.markdown)).toHaveLength(4);
    expect(r.images.map((i) => i.placeholder)).toEqual(['dossier://img-1']);
    expect(r.markdown.match(/!\[Image 1\]\(dossier:\/\/img-1\)/g)).toHaveLength(2);
    const pages = pagesOf(r);
    expect(pages).toHaveLength(3);
    expect(pages[1]).toMatch(/^!\[Image 1\]\(dossier:\/\/img-1\)\n\n# ZAVA AUTO REPAIR/);
    expect(pages[2]).toMatch(/^This is a preliminary estimate for the visible damage/);
  });

  it('reads the sparse inventory report: two borderless tables with empty cells, label lines kept, a paragraph joined across the page break', async () => {
    const r = await convertBytes(load('markitdown__SPARSE-2024-INV-1234_borderless_table.pdf'), 'sparse.pdf');
    expect(r.markdown).toMatch(/^# INVENTORY RECONCILIATION REPORT$/m);
    expect(r.markdown).toContain('Report ID: SPARSE-2024-INV-1234  \nWarehouse: Distribution Center East');
    const [first, second] = tables(r.markdown);
    expect(first).toMatch(/^\| Product Code \| Location \| Expected \| Actual \| Variance \| Status \|/);
    expect(first).toContain('| SKU-9201 |  | 780 | 778 |  | OK |');
    expect(second).toMatch(/^\| Product Code \| Category \| Unit Cost \| Total Value \| Last Audit \| Notes \|/);
    expect(second).toContain('| SKU-6678 | Software | $200.00 | $42,000.00 | 2024-10-25 | High Value |');
    expect(second?.split('\n')).toHaveLength(12);
    expect(r.markdown).toMatch(/^## Extended Inventory Review:$/m);
    expect(r.markdown).toContain('verification protocols should be reviewed to prevent future discrepancies');
    expect(r.markdown.slice(r.pageOffsets?.[1])).toMatch(/^reviewed to prevent future discrepancies/);
    // The variance chart and the approval stamp are images pdf.js decodes after the operator list: both kept.
    expect(r.images).toHaveLength(2);
    expect(r.markdown).toMatch(/Variance Analysis:[\s\S]*!\[Image 1\]\(dossier:\/\/img-1\)[\s\S]*Approval:[\s\S]*!\[Image 2\]\(dossier:\/\/img-2\)/);
  });

  it('reads the LayoutParser page: table with its header row, numbered subsection, code block, running head dropped', async () => {
    const r = await convertBytes(load('unstructured__layout-parser-paper-with-table.pdf'), 'layout-parser.pdf');
    expect(r.markdown).not.toContain('Toolkit for DL-Based DIA');
    expect(r.markdown).toMatch(/^Table 1: Current layout detection models in the LayoutParser model zoo$/m);
    const [table] = tables(r.markdown);
    expect(table).toMatch(/^\| Dataset \| Base Model1 \| Large Model \| Notes \|/);
    expect(table).toContain('| PubLayNet [38] | F / M | M | Layouts of modern scientific documents |');
    expect(table?.split('\n')).toHaveLength(7);
    expect(r.markdown).toMatch(/^## 3\.1 Layout Detection Models$/m);
    expect(r.markdown).toMatch(/```\n1 import layoutparser +as lp\n[^`]*5 layout = model \. detect \( image \)\n```/);
    expect(r.markdown).toContain('name and model name lp://<dataset-name>/<model-architecture-name>.');
  });

  it('keeps both copies of the duplicated memo page, each page offset at its own date line', async () => {
    const r = await convertBytes(load('unstructured__fake-memo-with-duplicate-page.pdf'), 'memo.pdf');
    const pages = pagesOf(r);
    expect(pages).toHaveLength(2);
    for (const page of pages) {
      expect(page).toMatch(/^May 5, 2023\n\nTo Whom it May Concern:\n\nThere were 20,000 bottles of water/);
      expect(page).toContain('Best Regards,\n\nMallori');
    }
  });

  it('keeps every word pdftotext finds in the text-layer PDFs (character counts within 3%)', async () => {
    // Reference counts: `pdftotext FILE - | tr -s '[:space:]' ' '` with poppler 22, whitespace collapsed.
    const reference: [string, number][] = [
      ['markitdown__test.pdf', 5165],
      ['unstructured__fake-memo.pdf', 201],
      ['unstructured__layout-parser-paper-with-table.pdf', 3152],
    ];
    for (const [name, chars] of reference) {
      const { markdown } = await convertBytes(load(name), name);
      const plain = markdown
        .replace(/```|^#+ |\|/gm, '')
        .replace(/\s+/g, ' ')
        .trim();
      expect(Math.abs(plain.length - chars) / chars, name).toBeLessThan(0.03);
    }
  });
});
