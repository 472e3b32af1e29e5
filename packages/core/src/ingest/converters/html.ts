import rehypeParse from 'rehype-parse';
import rehypeRemark from 'rehype-remark';
import remarkGfm from 'remark-gfm';
import remarkStringify from 'remark-stringify';
import { unified } from 'unified';
import { DossierError } from '../../domain/errors.ts';
import type { Converter } from './types.ts';
import { decodeText } from './decode.ts';
import { rehypeClean, remarkFlatCells } from './html-clean.ts';

const processor = unified()
  .use(rehypeParse)
  .use(rehypeClean)
  .use(rehypeRemark)
  .use(remarkFlatCells)
  .use(remarkGfm)
  .use(remarkStringify, { bullet: '-', fences: true, rule: '-' });

/** HTML text to normalised Markdown; also used by the adapters' DOCX and e-mail converters. */
export async function htmlToMarkdown(html: string): Promise<string> {
  const file = await processor.process(html);
  return `${String(file).replace(/\n{3,}/g, '\n\n').trim()}\n`;
}

/**
 * HTML through the unified ecosystem (hast → mdast): headings, lists, tables and links survive; scripts, styles,
 * comments and navigation do not, and a page that marks its `<main>` content is reduced to it.
 */
export const htmlConverter: Converter = {
  name: 'html',
  types: ['text/html'],
  async convert({ bytes }) {
    try {
      return { markdown: await htmlToMarkdown(decodeText(bytes)), images: [] };
    } catch (err) {
      throw new DossierError('conversion_failed', 'HTML could not be parsed', { cause: err });
    }
  },
};
