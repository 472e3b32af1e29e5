import { createRequire } from 'node:module';

/** A token window of a section's text. */
export interface DraftChunk {
  position: number;
  content: string;
  tokenCount: number;
}

/** The part of gpt-tokenizer's cl100k_base encoding used here. */
interface JsCl100k {
  encode(text: string, options: { allowedSpecial: Set<string>; disallowedSpecial: Set<string> }): number[];
}
/** The part of tiktoken's WASM encoder used here. */
interface WasmCl100k {
  encode_ordinary(text: string): Uint32Array;
}

/** What every JS encode passes: special-token text (`<|endoftext|>`) is ordinary text in a document, as in encode_ordinary. */
const ORDINARY = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };

const requireHere = createRequire(import.meta.url);

/**
 * Two builds of the same cl100k_base tokenizer (the same tokens), each where it is fastest, each loaded on first use
 * (about 40–60 MB and 150 ms a thread; a thread that never tokenizes pays nothing):
 * - gpt-tokenizer (plain JavaScript) for ordinary text: with its cache of words already merged it ran 2.5–4× the
 *   WASM build on SciFact and on generated prose (bench/RESULTS.md, 2026-11-28);
 * - tiktoken (WASM) for a text holding a run longer than MAX_BPE_WORD, where the JavaScript merge loop is about 4×
 *   slower (a 20 MB line of random letters: about 14 s against 57 s).
 */
let jsCl100k: JsCl100k | null = null;
const wordTokenizer = (): JsCl100k => {
  jsCl100k ??= requireHere('gpt-tokenizer/encoding/cl100k_base') as JsCl100k;
  return jsCl100k;
};
let wasmCl100k: WasmCl100k | null = null;
const longRunTokenizer = (): WasmCl100k => {
  wasmCl100k ??= (requireHere('tiktoken') as { get_encoding(name: 'cl100k_base'): WasmCl100k }).get_encoding('cl100k_base');
  return wasmCl100k;
};

/** Each cl100k token's length in UTF-8 bytes, by rank (from gpt-tokenizer's rank table). */
let tokenByteLengths: Uint8Array | null = null;
function byteLengths(): Uint8Array {
  if (tokenByteLengths) return tokenByteLengths;
  const ranks = (requireHere('gpt-tokenizer/bpeRanks/cl100k_base') as { default: (string | number[])[] }).default;
  tokenByteLengths = new Uint8Array(ranks.length);
  for (const [rank, token] of ranks.entries()) tokenByteLengths[rank] = typeof token === 'string' ? Buffer.byteLength(token, 'utf8') : token.length;
  return tokenByteLengths;
}

const decoder = new TextDecoder('utf-8', { fatal: false });
const encoder = new TextEncoder();

/**
 * Longest run of non-space characters handed to BPE in one piece. BPE time grows faster than linearly with a
 * piece's length (a 20 MB line without spaces would take minutes), so a longer "word" is encoded in slices of this
 * many characters; ordinary text, whose words are far shorter, tokenizes exactly as before.
 */
export const MAX_BPE_WORD = 256;

const isSpace = (code: number): boolean => code === 32 || (code >= 9 && code <= 13) || code === 0xa0 || code === 0x3000 || (code >= 0x2000 && code <= 0x200a);
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/** Where to cut a text so that no piece holds more than MAX_BPE_WORD non-space characters in a row (never inside a surrogate pair). */
function longWordCuts(text: string): number[] {
  const cuts: number[] = [];
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (isSpace(code)) run = 0;
    else if (++run > MAX_BPE_WORD && !isLowSurrogate(code)) {
      cuts.push(i);
      run = 1;
    }
  }
  return cuts;
}

/** cl100k tokens of a text, with words longer than MAX_BPE_WORD encoded slice by slice. */
export function encodeBounded(text: string): ArrayLike<number> {
  const cuts = longWordCuts(text);
  if (cuts.length === 0) return wordTokenizer().encode(text, ORDINARY);
  const bounds = [0, ...cuts, text.length];
  const parts = bounds.slice(1).map((end, i) => longRunTokenizer().encode_ordinary(text.slice(bounds[i], end)));
  const out = new Uint32Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/** Where each token starts in the text's UTF-8 bytes, plus the end (a text's tokens, end to end, are its bytes). */
function byteOffsets(tokens: ArrayLike<number>): Uint32Array {
  const lengths = byteLengths();
  const offsets = new Uint32Array(tokens.length + 1);
  for (let i = 0; i < tokens.length; i++) offsets[i + 1] = offsets[i]! + lengths[tokens[i]!]!;
  return offsets;
}

/** Number of cl100k tokens in a text. */
export const countTokens = (text: string): number => encodeBounded(text).length;

/** A chunk's text and its token count, before it gets its position. */
type Piece = Omit<DraftChunk, 'position'>;

/** Windows of `size` tokens overlapping by `overlap` over a text, each prefixed with `prefix` (its tokens not counted in `size`). */
function tokenWindows(text: string, size: number, overlap: number, prefix = ''): Piece[] {
  const tokens = encodeBounded(text);
  const bytes = encoder.encode(text);
  const offsets = byteOffsets(tokens);
  const prefixTokens = prefix ? countTokens(prefix) : 0;
  const step = Math.max(1, size - Math.min(overlap, size - 1));
  const out: Piece[] = [];
  for (let start = 0; start < tokens.length; start += step) {
    const end = Math.min(start + size, tokens.length);
    const window = bytes.subarray(offsets[start], offsets[end]);
    const content = decoder.decode(window).replace(/^\uFFFD+|\uFFFD+$/g, '').trim();
    if (content) out.push({ content: prefix + content, tokenCount: prefixTokens + end - start });
    if (start + size >= tokens.length) break;
  }
  return out;
}

/** A Markdown pipe table in a section's text: its character range, its header (header row and rule line) and its rows. */
interface TableSpan {
  start: number;
  end: number;
  header: string;
  rows: string[];
}

const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_RULE = /^\s*\|?(\s*:?-+:?\s*\|)+\s*(:?-+:?\s*)?$/;

/** The pipe tables of a text: a row, a rule line under it, then the rows that follow. */
export function findTables(text: string): TableSpan[] {
  const lines = text.split('\n');
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length + 1;
  }
  const tables: TableSpan[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!TABLE_ROW.test(lines[i]!) || !TABLE_RULE.test(lines[i + 1]!)) continue;
    let last = i + 2;
    while (last < lines.length && TABLE_ROW.test(lines[last]!)) last++;
    const end = last < lines.length ? starts[last]! : text.length;
    tables.push({ start: starts[i]!, end, header: `${lines[i]}\n${lines[i + 1]}`, rows: lines.slice(i + 2, last) });
    i = last - 1;
  }
  return tables;
}

/** Rows under a header as one chunk, halved until each part's exact count fits (tokens can merge across lines). */
function fitRows(prefix: string, rows: string[], size: number): Piece[] {
  const content = prefix + rows.join('\n');
  const tokenCount = countTokens(content);
  if (tokenCount <= size || rows.length === 1) return [{ content, tokenCount }];
  const half = Math.ceil(rows.length / 2);
  return [...fitRows(prefix, rows.slice(0, half), size), ...fitRows(prefix, rows.slice(half), size)];
}

/**
 * A table longer than one window, cut between rows, every chunk starting with the table's header so its rows keep
 * their column names. A row too long for one chunk is windowed, each window under the header too. No overlap: each
 * chunk stands on its own.
 */
function tableWindows(table: TableSpan, size: number): Piece[] {
  const prefix = `${table.header}\n`;
  const budget = size - countTokens(prefix);
  const out: Piece[] = [];
  let rows: string[] = [];
  let used = 0;
  const flush = () => {
    if (rows.length) out.push(...fitRows(prefix, rows, size));
    rows = [];
    used = 0;
  };
  for (const row of table.rows) {
    const cost = countTokens(`${row}\n`);
    if (cost > budget) {
      flush();
      out.push(...tokenWindows(row, budget, 0, prefix));
      continue;
    }
    if (used + cost > budget) flush();
    rows.push(row);
    used += cost;
  }
  flush();
  return out;
}

/**
 * Whether a table needs more than one chunk, counting rows only until it does (a whole big table is never encoded
 * at once), and has a header short enough (at most half a chunk) to leave room for rows under it.
 */
function longerThanWindow(table: TableSpan, size: number): boolean {
  const header = countTokens(`${table.header}\n`);
  if (table.rows.length < 2 || header > size / 2) return false;
  let total = header;
  for (const row of table.rows) {
    total += countTokens(`${row}\n`);
    if (total > size) return true;
  }
  return false;
}

/**
 * Split one section's text into windows of `size` tokens that overlap by `overlap` tokens.
 * Windows never cross the section; a window boundary that splits a multi-byte character drops the fragment.
 * A table longer than one window is cut between rows and each of its chunks repeats the table's header row.
 */
export function chunkText(text: string, size: number, overlap: number): DraftChunk[] {
  if (text.trim() === '') return [];
  const long = text.includes('|') ? findTables(text).filter((t) => longerThanWindow(t, size)) : [];
  const parts: Piece[] = [];
  let at = 0;
  for (const table of long) {
    if (text.slice(at, table.start).trim()) parts.push(...tokenWindows(text.slice(at, table.start), size, overlap));
    parts.push(...tableWindows(table, size));
    at = table.end;
  }
  if (text.slice(at).trim()) parts.push(...tokenWindows(text.slice(at), size, overlap));
  return parts.map((p, position) => ({ position, ...p }));
}
