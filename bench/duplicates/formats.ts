/**
 * The same text as PDF, DOCX, HTML and Markdown with syntax, written at bench time so that the converters' own
 * artefacts (line breaks, hyphenation, running headers and footers, Markdown syntax) are what detection sees.
 */
import { makePdf, type TextOp } from '../../packages/adapters/test/converters/pdf-helpers.ts';
import { docxXml, makeDocx } from '../../packages/adapters/test/converters/office-helpers.ts';
import { sentences } from './edits.ts';

const LINE_CHARS = 92;
const LINES_PER_PAGE = 52;

/** Wrap prose to lines; a long word at the end of a full line is hyphenated across it, as typeset text is. */
export function wrapWithHyphens(text: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line.length + word.length + 1 <= LINE_CHARS) {
      line = line ? `${line} ${word}` : word;
      continue;
    }
    const room = LINE_CHARS - line.length - 2;
    if (word.length >= 8 && room >= 3 && /^[a-z]+$/.test(word.slice(0, room))) {
      lines.push(`${line} ${word.slice(0, room)}-`);
      line = word.slice(room);
    } else {
      lines.push(line);
      line = word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** A PDF of the text: a title, wrapped hyphenated lines, a running header and a page-number footer on each page. */
export function pdfOf(title: string, text: string): Uint8Array {
  const lines = wrapWithHyphens(text);
  const pages: { texts: TextOp[] }[] = [];
  for (let start = 0; start < lines.length || pages.length === 0; start += LINES_PER_PAGE) {
    const number = pages.length + 1;
    const texts: TextOp[] = [{ text: 'Proceedings of the Example Society - preprint', x: 72, y: 760, size: 8 }];
    if (number === 1) texts.push({ text: title.slice(0, 90), x: 72, y: 730, size: 14, bold: true });
    for (const [index, line] of lines.slice(start, start + LINES_PER_PAGE).entries()) texts.push({ text: line, x: 72, y: 700 - index * 12, size: 10 });
    texts.push({ text: `Page ${number}`, x: 290, y: 40, size: 8 });
    pages.push({ texts });
  }
  return makePdf(pages);
}

const xmlEscape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A DOCX of the text: the title, then paragraphs of three sentences. */
export function docxOf(title: string, text: string): Uint8Array {
  const parts = sentences(text);
  const paragraphs: string[] = [xmlEscape(title)];
  for (let start = 0; start < parts.length; start += 3) paragraphs.push(xmlEscape(parts.slice(start, start + 3).join(' ')));
  return new Uint8Array(makeDocx(docxXml(...paragraphs)));
}

/** A web page of the text: navigation, a heading, a paragraph per sentence, a footer. */
export const htmlOf = (title: string, text: string): string =>
  `<!doctype html><html><body><nav><a href="/">Home</a> | <a href="/archive">Archive</a></nav><main><h1>${xmlEscape(title)}</h1>${sentences(text)
    .map((s) => `<p>${xmlEscape(s)}</p>`)
    .join('')}</main><footer>© Journal — all rights reserved</footer></body></html>`;

/** Markdown with its syntax: a heading, emphasis on some words, a link, a list of the last sentences. */
export function markdownOf(title: string, text: string): string {
  const parts = sentences(text);
  const emphasised = parts
    .slice(0, -2)
    .map((sentence, index) => (index % 2 ? sentence.replace(/\b(\w{7,})\b/, '**$1**') : sentence.replace(/\b(\w{6,})\b/, '[$1](https://example.org/ref)')));
  return `# ${title}\n\n> Reposted from the journal\n\n${emphasised.join(' ')}\n\n${parts
    .slice(-2)
    .map((sentence) => `- ${sentence}`)
    .join('\n')}\n`;
}
