import { describe, expect, it } from 'vitest';
import { convert, docxXml, makeDocx, makePptx, makeXlsx } from './office-helpers.ts';

describe('the office converters on generated documents', () => {
  it('gives a PPTX slide its title heading, bullets in order and speaker notes', async () => {
    const pptx = makePptx([
      { title: 'Quarterly plan', bullets: ['Grow revenue', 'Hire two engineers'], notes: 'Mention the budget freeze' },
      { title: 'Risks', bullets: ['Supply chain'] },
    ]);
    const r = await convert(pptx, 'plan.pptx');
    expect(r.markdown).toBe(
      '## Slide 1: Quarterly plan\n\n- Grow revenue\n- Hire two engineers\n\n### Notes\n\nMention the budget freeze\n\n## Slide 2: Risks\n\n- Supply chain\n',
    );
    // Each slide is a page of the document, starting at its heading (issue 39: passages cite their slide).
    expect(r.pageOffsets?.map((o) => r.markdown.slice(o, o + 10))).toEqual(['## Slide 1', '## Slide 2']);
  });

  it('splits a long sheet into tables of 200 rows that each repeat the header', async () => {
    const rows = [`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>`];
    for (let i = 2; i <= 451; i++) rows.push(`<row r="${i}"><c r="A${i}"><v>${i}</v></c><c r="B${i}" t="inlineStr"><is><t>v|${i}</t></is></c></row>`);
    const r = await convert(makeXlsx([['Data', rows.join('')]], ['<t>Id</t>', '<t>Value</t>']), 'big.xlsx');
    const headers = r.markdown.match(/^\| Id \| Value \|$/gm) ?? [];
    expect(headers).toHaveLength(3);
    expect(r.markdown).toContain('| 451 | v\\|451 |');
    expect(r.markdown.match(/^\| \d+ \|/gm)).toHaveLength(450);
  });

  it('records, for each table line of a sheet, the sheet row it holds and the columns of its sheet (issue 39)', async () => {
    const rows = [`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>`];
    for (let i = 2; i <= 451; i++) rows.push(`<row r="${i}"><c r="A${i}"><v>${i}</v></c><c r="B${i}" t="inlineStr"><is><t>v|${i}</t></is></c></row>`);
    // A second sheet starting at C3, with an empty row 4 that the Markdown leaves out.
    const sparse =
      '<row r="3"><c r="C3" t="str"><v>Item</v></c><c r="D3" t="str"><v>Cost</v></c></row><row r="5"><c r="C5" t="str"><v>Zeppelin</v></c><c r="D5"><v>9</v></c></row>';
    const r = await convert(
      makeXlsx(
        [
          ['Data', rows.join('')],
          ['Costs', sparse],
        ],
        ['<t>Id</t>', '<t>Value</t>'],
      ),
      'big.xlsx',
    );
    const cells = r.cells ?? [];
    const lineOf = (c: { start: number; end: number }) => r.markdown.slice(c.start, c.end);
    expect(cells.every((c) => lineOf(c).startsWith('| ') && lineOf(c).endsWith(' |') && !lineOf(c).includes('---'))).toBe(true);
    const data = cells.filter((c) => c.sheet === 'Data');
    expect(data).toHaveLength(451); // every row once: the header's copies atop the second and third tables are not rows of theirs
    expect(data.every((c) => c.firstColumn === 1 && c.lastColumn === 2)).toBe(true);
    expect(data.map((c) => c.row)).toEqual(Array.from({ length: 451 }, (_, i) => i + 1));
    for (const c of data) expect(lineOf(c)).toBe(c.row === 1 ? '| Id | Value |' : `| ${c.row} | v\\|${c.row} |`);
    const costs = cells.filter((c) => c.sheet === 'Costs');
    expect(costs.map((c) => [lineOf(c), c.row, c.firstColumn, c.lastColumn])).toEqual([
      ['|  |  | Item | Cost |', 3, 3, 4],
      ['|  |  | Zeppelin | 9 |', 5, 3, 4],
    ]);
  });

  it('shows date-formatted cells as ISO dates and leaves out phonetic guides', async () => {
    const sheet =
      '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row><row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2" s="1"><v>45292</v></c></row>';
    const r = await convert(
      makeXlsx([['People', sheet]], ['<t>Name</t>', '<t>Joined</t>', '<r><t>東京</t></r><rPh sb="0" eb="2"><t>トウキョウ</t></rPh>']),
      'p.xlsx',
    );
    expect(r.markdown).toContain('| 東京 | 2024-01-01 |');
    expect(r.markdown).not.toContain('トウキョウ');
  });

  it('places sparse cells by reference and keeps booleans, errors and rounded floats', async () => {
    const sheet =
      '<row r="1"><c r="A1" t="str"><v>k</v></c><c r="C1" t="str"><v>v</v></c></row><row r="3"><c r="A3" t="b"><v>1</v></c><c r="B3" t="e"><v>#DIV/0!</v></c><c r="C3"><v>0.30000000000000004</v></c></row>';
    const r = await convert(makeXlsx([['S', sheet]]), 's.xlsx');
    expect(r.markdown).toContain('| k |  | v |');
    expect(r.markdown).toContain('| TRUE | #DIV/0! | 0.3 |');
  });

  it('reads a semicolon CSV with quoted delimiters, quotes and line breaks, escaping pipes', async () => {
    const csv = 'name;note\n"Smith; J.";"said ""hi"""\nLee;"a|b\nsecond line"\n';
    const r = await convert(csv, 'people.csv');
    expect(r.detectedType).toBe('text/csv');
    expect(r.markdown).toBe('## people\n\n| name | note |\n| --- | --- |\n| Smith; J. | said "hi" |\n| Lee | a\\|b<br>second line |\n');
  });

  it('reads TSV by its tabs', async () => {
    const r = await convert('a\tb\n1\t2\n', 'x.tsv');
    expect(r.detectedType).toBe('text/tab-separated-values');
    expect(r.markdown).toContain('| a | b |\n| --- | --- |\n| 1 | 2 |');
  });

  it('turns an HTML e-mail with an inline image and attachments into headers, body, sections and a list', async () => {
    const png = Buffer.from(
      '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201b5e5d2c60000000049454e44ae426082',
      'hex',
    );
    const eml = [
      'From: "Ann Example" <ann@example.com>',
      'To: bob@example.com, Carol <carol@example.com>',
      'Cc: dan@example.com',
      'Subject: =?UTF-8?B?UmVwb3J0IOKckw==?=',
      'Date: Tue, 01 Oct 2024 10:00:00 +0000',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="m"',
      '',
      '--m',
      'Content-Type: multipart/related; boundary="r"',
      '',
      '--r',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<h1>Status</h1><p>All <b>green</b>.</p><img src="cid:logo@x" alt="Logo">',
      '--r',
      'Content-Type: image/png',
      'Content-ID: <logo@x>',
      'Content-Transfer-Encoding: base64',
      '',
      png.toString('base64'),
      '--r--',
      '--m',
      'Content-Type: text/plain; charset=utf-8; name="notes.txt"',
      'Content-Disposition: attachment; filename="notes.txt"',
      '',
      'Remember the milk.',
      '--m',
      'Content-Type: application/pdf; name="scan.pdf"',
      'Content-Disposition: attachment; filename="scan.pdf"',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from('%PDF-1.4 fake').toString('base64'),
      '--m--',
      '',
    ].join('\r\n');
    const r = await convert(eml, 'message');
    expect(r.detectedType).toBe('message/rfc822');
    expect(r.markdown).toContain('# Report ✓');
    expect(r.markdown).toContain('- **From:** Ann Example <ann@example.com>');
    expect(r.markdown).toContain('- **To:** <bob@example.com>, Carol <carol@example.com>');
    expect(r.markdown).toContain('- **Cc:** <dan@example.com>');
    expect(r.markdown).toContain('All **green**.');
    expect(r.markdown).toContain('![Logo](dossier://img-1)');
    expect(r.images).toHaveLength(1);
    expect(r.markdown).toContain('## Attachment: notes.txt\n\nRemember the milk.');
    expect(r.markdown).toMatch(/## Attachments\n\n- scan\.pdf \(application\/pdf, 13 bytes\)/);
  });

  it('renders JSON with top-level scalars together, a table for records and sections for the rest', async () => {
    const json = JSON.stringify({
      name: 'svc',
      users: [
        { id: 1, role: 'admin' },
        { id: 2, role: 'dev|ops' },
      ],
      limits: { rps: 10 },
      on: true,
    });
    const r = await convert(json, 'config.json');
    expect(r.detectedType).toBe('application/json');
    expect(r.markdown).toContain('# config.json\n\n```json\n{\n  "name": "svc",\n  "on": true\n}\n```');
    expect(r.markdown).toContain('## users\n\n| id | role |\n| --- | --- |\n| 1 | admin |\n| 2 | dev\\|ops |');
    expect(r.markdown).toContain('## limits\n\n```json\n{\n  "rps": 10\n}\n```');
  });

  it('keeps YAML source and comments under a section per composite top-level key', async () => {
    const r = await convert('# settings\nname: x\ndb:\n  url: postgres://h  # primary\n  pool: 4\n', 'app.yml');
    expect(r.detectedType).toBe('application/yaml');
    expect(r.markdown).toBe('# app.yml\n\n```yaml\n# settings\nname: x\n```\n\n## db\n\n```yaml\ndb:\n  url: postgres://h  # primary\n  pool: 4\n```\n');
  });

  it('splits source code at top-level declarations, with their leading comments', async () => {
    const src = 'import os\n\n# Adds.\ndef add(a, b):\n    return a + b\n\n\nclass Box:\n    pass\n';
    const r = await convert(src, 'tools.py');
    expect(r.detectedType).toBe('text/x-source');
    expect(r.markdown).toBe(
      '# tools.py\n\n```python\nimport os\n```\n\n## `add`\n\n```python\n# Adds.\ndef add(a, b):\n    return a + b\n```\n\n## `Box`\n\n```python\nclass Box:\n    pass\n```\n',
    );
  });

  it('fences code containing backticks with a longer fence', async () => {
    const r = await convert('const s = `a ``` b`;\n', 'one.ts');
    expect(r.markdown).toBe('# one.ts\n\n````typescript\nconst s = `a ``` b`;\n````\n');
  });

  it('converts RST lists, tables, literal blocks, notes and over-and-underlined titles', async () => {
    const rst =
      '=====\nGuide\n=====\n\nIntro with ``code`` and `a link <https://e.x>`_.\n\nSetup\n-----\n\n1. First\n2. Second\n\n   - nested\n\nRun this::\n\n    make all\n\n.. note:: Be careful.\n\n=====  =====\nkey    value\n=====  =====\na      1\n=====  =====\n';
    const r = await convert(rst, 'guide.rst');
    expect(r.markdown).toContain('# Guide\n\nIntro with `code` and [a link](https://e.x).\n\n## Setup');
    expect(r.markdown).toContain('1. First\n1. Second\n   - nested');
    expect(r.markdown).toContain('Run this:\n\n```\nmake all\n```');
    expect(r.markdown).toContain('> **Note:** Be careful.');
    expect(r.markdown).toContain('| key | value |\n| --- | --- |\n| a | 1 |');
  });

  it('numbers DOCX images in reading order and keeps their alt text', async () => {
    const W =
      'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"';
    const drawing = (rid: string, alt: string): string =>
      `<w:p><w:r><w:drawing><wp:inline><wp:extent cx="10" cy="10"/><wp:docPr id="1" name="p" descr="${alt}"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="1" name="p"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:embed="${rid}"/></pic:blipFill><pic:spPr/></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`;
    const doc = `<?xml version="1.0"?><w:document ${W}><w:body><w:p><w:r><w:t>Before</w:t></w:r></w:p>${drawing('rId2', 'First')}${drawing('rId3', 'Second')}</w:body></w:document>`;
    const rels =
      '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/a.png"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/b.jpeg"/></Relationships>';
    const r = await convert(
      makeDocx(doc, [
        { name: 'word/_rels/document.xml.rels', data: rels },
        { name: 'word/media/a.png', data: 'A' },
        { name: 'word/media/b.jpeg', data: 'B' },
      ]),
      'pics.docx',
    );
    expect(r.markdown).toBe('Before\n\n![First](dossier://img-1)\n\n![Second](dossier://img-2)\n');
    expect(r.images.map((i) => [i.placeholder, i.mimeType, Buffer.from(i.bytes).toString()])).toEqual([
      ['dossier://img-1', 'image/png', 'A'],
      ['dossier://img-2', 'image/jpeg', 'B'],
    ]);
  });

  it('converts a plain DOCX paragraph without styles', async () => {
    const r = await convert(makeDocx(docxXml('Hello &lt;world&gt; &amp; all')), 'a.docx');
    expect(r.markdown).toBe('Hello \\<world> & all\n');
  });

  it('maps Word heading styles and numbering, and appends footnotes and endnotes as a section', async () => {
    const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
    const doc = `<?xml version="1.0"?><w:document ${W}><w:body><w:p><w:pPr><w:pStyle w:val="Heading2"/></w:pPr><w:r><w:t>Results</w:t></w:r></w:p><w:p><w:r><w:t>Claim</w:t></w:r><w:r><w:footnoteReference w:id="1"/></w:r><w:r><w:t> and more</w:t></w:r><w:r><w:endnoteReference w:id="2"/></w:r></w:p><w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>item one</w:t></w:r></w:p></w:body></w:document>`;
    const fns = `<?xml version="1.0"?><w:footnotes ${W}><w:footnote w:id="1"><w:p><w:r><w:t>Source: survey 2024.</w:t></w:r></w:p></w:footnote></w:footnotes>`;
    const ens = `<?xml version="1.0"?><w:endnotes ${W}><w:endnote w:id="2"><w:p><w:r><w:t>End note text.</w:t></w:r></w:p></w:endnote></w:endnotes>`;
    const styles = `<?xml version="1.0"?><w:styles ${W}><w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style></w:styles>`;
    const numbering = `<?xml version="1.0"?><w:numbering ${W}><w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>`;
    const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
    const rels = `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="r1" Type="${R}/footnotes" Target="footnotes.xml"/><Relationship Id="r2" Type="${R}/endnotes" Target="endnotes.xml"/><Relationship Id="r3" Type="${R}/styles" Target="styles.xml"/><Relationship Id="r4" Type="${R}/numbering" Target="numbering.xml"/></Relationships>`;
    const parts = [
      { name: 'word/_rels/document.xml.rels', data: rels },
      { name: 'word/footnotes.xml', data: fns },
      { name: 'word/endnotes.xml', data: ens },
      { name: 'word/styles.xml', data: styles },
      { name: 'word/numbering.xml', data: numbering },
    ];
    const r = await convert(makeDocx(doc, parts), 'fn.docx');
    expect(r.markdown).toBe('## Results\n\nClaim\\[1] and more\\[2]\n\n- item one\n\n## Footnotes\n\n1. Source: survey 2024.\n\n2. End note text.\n');
  });
});
