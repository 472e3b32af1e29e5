import type { Converter } from './types.ts';
import { decodeText } from './decode.ts';

/** Markdown is already the target format: decode and normalise whitespace only. */
export const markdownConverter: Converter = {
  name: 'markdown',
  types: ['text/markdown'],
  async convert({ bytes }) {
    return { markdown: `${decodeText(bytes).trim()}\n`, images: [] };
  },
};
