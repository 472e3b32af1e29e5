import { get_encoding, type Tiktoken } from 'tiktoken';

/** A token window of a section's text. */
export interface DraftChunk {
  position: number;
  content: string;
  tokenCount: number;
}

let encoder: Tiktoken | null = null;
/** The cl100k_base tokenizer, created once per thread (WASM). */
const enc = (): Tiktoken => {
  encoder ??= get_encoding('cl100k_base');
  return encoder;
};

const decoder = new TextDecoder('utf-8', { fatal: false });

/** Number of cl100k tokens in a text. */
export const countTokens = (text: string): number => enc().encode_ordinary(text).length;

/**
 * Split one section's text into windows of `size` tokens that overlap by `overlap` tokens.
 * Windows never cross the section; a window boundary that splits a multi-byte character drops the fragment.
 */
export function chunkText(text: string, size: number, overlap: number): DraftChunk[] {
  if (text.trim() === '') return [];
  const tokens = enc().encode_ordinary(text);
  const step = Math.max(1, size - Math.min(overlap, size - 1));
  const chunks: DraftChunk[] = [];
  for (let start = 0; start < tokens.length; start += step) {
    const window = tokens.subarray(start, Math.min(start + size, tokens.length));
    const content = decoder.decode(enc().decode(window)).replace(/^\uFFFD+|\uFFFD+$/g, '').trim();
    if (content) chunks.push({ position: chunks.length, content, tokenCount: window.length });
    if (start + size >= tokens.length) break;
  }
  return chunks;
}
