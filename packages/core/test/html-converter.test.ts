import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from '../src/ingest/converters/html.ts';

const filler = 'The article body has real sentences about the subject. '.repeat(12);

describe('HTML to Markdown', () => {
  it('drops source comments, navigation, language switchers and empty heading anchors', async () => {
    const md = await htmlToMarkdown(`<html><body><!-- CentralNotice --><nav><a href="/">Home</a></nav>
      <ul><li><a href="https://af.example.org/x" hreflang="af">Afrikaans</a></li><li><a href="https://de.example.org/x" hreflang="de">Deutsch</a></li>
      <li><a href="https://fr.example.org/x" hreflang="fr">Français</a></li></ul>
      <h2>Setup<a href="#setup" class="hash-link">\u200b</a></h2><p>${filler}</p>
      <div role="navigation"><a href="/next">Next page</a></div></body></html>`);
    expect(md).not.toMatch(/<!--|CentralNotice|Home|Afrikaans|Next page|\]\(#setup/);
    expect(md).toMatch(/^## Setup$/m);
  });

  it('keeps only the main content when the page marks it, but the whole body when main is a fragment', async () => {
    const page = (main: string) => `<body><div class="sidebar"><p>Sidebar links everywhere</p></div><main>${main}</main><footer>Footer text</footer></body>`;
    const full = await htmlToMarkdown(page(`<h1>Title</h1><p>${filler}</p>`));
    expect(full).toMatch(/^# Title/);
    expect(full).not.toMatch(/Sidebar|Footer/);
    const fragment = await htmlToMarkdown(page('<p>Short</p>'));
    expect(fragment).toMatch(/Sidebar[\s\S]*Short[\s\S]*Footer/);
  });

  it('writes table cells with line breaks on one line, and strips zero-width spaces but keeps joiners that scripts need', async () => {
    const md = await htmlToMarkdown(`<table><tr><th>Name</th><th>Role</th></tr><tr><td>Bill<br>Gates</td><td>Co-founder
      and adviser</td></tr></table><h3>Zero\u200bwidth\ufeff</h3><p>මයික්\u200dරොසොෆ්ට්</p>`);
    expect(md).toContain('| Bill Gates | Co-founder and adviser |');
    expect(md).not.toContain('&#xA;');
    expect(md).toMatch(/^### Zerowidth$/m);
    expect(md).toContain('\u200d');
  });
});
