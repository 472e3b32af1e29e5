import type { Converter } from './types.ts';
import { decodeText } from './decode.ts';

/** Characters that would turn a plain-text line into Markdown structure when they start it. */
const LEADING_MARKUP = /^(\s{0,3})([#>]|[-*+] |={3,}|-{3,}|`{3,}|~{3,})/;
const ORDERED_ITEM = /^(\s{0,3}\d+)([.)] )/;

/** Plain text: kept verbatim, with line starts escaped so that text never becomes headings or lists by accident. */
export const textConverter: Converter = {
  name: 'text',
  types: ['text/plain'],
  async convert({ bytes }) {
    const lines = decodeText(bytes)
      .split('\n')
      .map((line) =>
        line
          .replace(/\s+$/, '')
          .replace(LEADING_MARKUP, (_m, ws: string, mark: string) => `${ws}\\${mark}`)
          .replace(ORDERED_ITEM, '$1\\$2'),
      );
    return {
      markdown: `${lines
        .join('\n')
        .replace(/\n{3,}/g, '\n\n')
        .trim()}\n`,
      images: [],
    };
  },
};
