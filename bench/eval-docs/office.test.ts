import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { convert } from '../../packages/adapters/test/converters/office-helpers.ts';
import { EVAL_DOCS as DOCS } from './docs.ts';

const load = (name: string): Buffer => readFileSync(join(DOCS, name));
const suite = 'the office converters on the shared evaluation documents';

describe(suite, () => {
  it('turns test.docx into headings, a GFM table with its first row as header, and an extracted image', async () => {
    const r = await convert(load('markitdown__test.docx'), 'test.docx');
    expect(r.detectedType).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(r.markdown).toMatch(/^# AutoGen: Enabling Next-Gen LLM Applications/m);
    expect(r.markdown).toMatch(/^# Abstract$/m);
    expect(r.markdown).toMatch(/^# Introduction$/m);
    expect(r.markdown).toMatch(/^\| 1 +\| 2 +\| 3 /m);
    expect(r.markdown).toContain('49e168b7-d2ae-407f-a055-2167576f39a1');
    expect(r.markdown).toMatch(/!\[[^\]]*\]\(dossier:\/\/img-1\)/);
    expect(r.images).toHaveLength(1);
    expect(r.images[0]).toMatchObject({ placeholder: 'dossier://img-1', mimeType: 'image/png' });
  });

  it('keeps reviewer comments of a DOCX as a Comments section', async () => {
    const r = await convert(load('markitdown__test_with_comment.docx'), 'test_with_comment.docx');
    expect(r.markdown).toMatch(/^## Comments$/m);
    expect(r.markdown).toContain('This is a test comment. 12df-321a');
    expect(r.markdown).toContain('Yet another comment in the doc. 55yiyi-asd09');
  });

  it('writes DOCX equations as LaTeX, inline and display', async () => {
    const r = await convert(load('markitdown__equations.docx'), 'equations.docx');
    expect(r.markdown).toContain('For $m=1$,');
    expect(r.markdown).toContain('\\frac{m\\lambda}{a}');
    expect(r.markdown).toMatch(/^\$\$.*\\frac\{a\}\{\\lambda\}.*\$\$$/m);
  });

  it('gives each slide of test.pptx a section, with its table, chart data and images', async () => {
    const r = await convert(load('markitdown__test.pptx'), 'test.pptx');
    expect(r.detectedType).toBe('application/vnd.openxmlformats-officedocument.presentationml.presentation');
    expect(r.markdown.match(/^## Slide \d+/gm)).toHaveLength(6);
    expect(r.markdown).toMatch(/^## Slide 1: AutoGen: Enabling Next-Gen LLM Applications/m);
    expect(r.markdown).toMatch(/^## Slide 3: A table to test parsing:$/m);
    expect(r.markdown).toMatch(/^\| ColA \| ColB \| ColC \| ColD \| ColE \| ColF \|$/m);
    expect(r.markdown).toContain('1b92870d-e3b5-4e65-8153-919f4ff45592');
    expect(r.markdown).toContain('**Chart: a3f6004b-6f4f-4ea8-bee3-3741f4dc385f**');
    expect(r.markdown).toMatch(/^- Sub comment 2$|^ {2}- Sub comment 2$/m);
    expect(r.images.map((i) => i.placeholder)).toEqual(['dossier://img-1', 'dossier://img-2']);
    expect(r.markdown).toContain('](dossier://img-2)');
  });

  it('gives each sheet of test.xlsx a section with a header row', async () => {
    const r = await convert(load('markitdown__test.xlsx'), 'test.xlsx');
    expect(r.markdown).toMatch(/^## Sheet1$/m);
    expect(r.markdown).toMatch(/^## 09060124-b5e7-4717-9d07-3c046eb$/m);
    expect(r.markdown).toMatch(/^\| Alpha \| Beta \| Gamma \| Delta \|\n\| --- /m);
    expect(r.markdown).toContain('| 58 | 6ff4173b-42a5-4784-9b19-f49caff4d93d | 22 | 9 |');
    expect(r.markdown).toContain('affc7dad-52dc-4b98-9b5d-51e65d8a8ad0');
  });

  it('decodes the Shift-JIS CSV into correct Japanese', async () => {
    const r = await convert(load('markitdown__test_mskanji.csv'), 'test_mskanji.csv');
    expect(r.detectedType).toBe('text/csv');
    expect(r.markdown).toContain('| 名前 | 年齢 | 住所 |');
    expect(r.markdown).toContain('| 佐藤太郎 | 30 | 東京 |');
    expect(r.markdown).toContain('| 髙橋淳 | 35 | 名古屋 |');
  });

  it('renders the e-mail headers as a front block and the HTML body as Markdown', async () => {
    const r = await convert(load('unstructured__fake-email.eml'), 'fake-email.eml');
    expect(r.detectedType).toBe('message/rfc822');
    expect(r.markdown).toMatch(/^# Test Email$/m);
    expect(r.markdown).toContain('- **From:** Matthew Robinson <mrobinson@unstructured.io>');
    expect(r.markdown).toContain('- **To:** NotMatthew <NotMatthew@notunstructured.com>');
    expect(r.markdown).toMatch(/^- \*\*Date:\*\* 2022-12-16/m);
    expect(r.markdown).toMatch(/^- Roses are red$/m);
  });

  it('maps RST adornments to heading levels and code directives to fences', async () => {
    const r = await convert(load('unstructured__README.rst'), 'README.rst');
    expect(r.detectedType).toBe('text/x-rst');
    expect(r.markdown).toMatch(/^# Example Docs$/m);
    expect(r.markdown).toMatch(/^## XBRL 10-K$/m);
    expect(r.markdown).toContain('- `example-10k.html` - A 10-K SEC filing in HTML format');
    expect(r.markdown).toMatch(/^```bash\ncurl -O \\\n {2}-A/m);
  });
});
