import { DossierError } from '../../domain/errors.ts';
import type { Converter } from './types.ts';
import { decodeText } from './decode.ts';
import { rehypeClean, remarkFlatCells } from './html-clean.ts';

/**
 * The unified pipeline, built on first use: its 150-odd modules are a sizeable share of a cold process's start
 * (issue 41), and a process that only searches never converts HTML.
 */
let processor: Promise<{ process(html: string): Promise<unknown> }> | undefined;
const htmlProcessor = () =>
  (processor ??= Promise.all([import('rehype-parse'), import('rehype-remark'), import('remark-gfm'), import('remark-stringify'), import('unified')]).then(
    ([parse, toMarkdown, gfm, stringify, { unified }]) =>
      unified()
        .use(parse.default)
        .use(rehypeClean)
        .use(toMarkdown.default)
        .use(remarkFlatCells)
        .use(gfm.default)
        .use(stringify.default, { bullet: '-', fences: true, rule: '-' }),
  ));

/** HTML text to normalised Markdown; also used by the adapters' DOCX and e-mail converters. */
export async function htmlToMarkdown(html: string): Promise<string> {
  const file = await (await htmlProcessor()).process(html);
  return `${String(file)
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
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
