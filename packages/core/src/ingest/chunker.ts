import { createRequire } from 'node:module';

/** A token window of a section's text. */
export interface DraftChunk {
  position: number;
  content: string;
  tokenCount: number;
  /**
   * The chunk's own characters in the chunked text: [start, end), UTF-16 offsets. A table chunk's repeated header
   * (prefixed to every chunk after the table's first) is not part of it.
   */
  start: number;
  end: number;
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

/** UTF-8 length of the code point starting at `code` (a lone surrogate encodes as U+FFFD, three bytes). */
const utf8Length = (code: number): number => (code < 0x80 ? 1 : code < 0x800 ? 2 : code <= 0xffff ? 3 : 4);

/**
 * Walks a text's UTF-8 byte offsets forward, answering the matching UTF-16 offsets: `atOrAfter(b)` is the first
 * character starting at byte b or later, `before(b)` the end of the last character ending at byte b or earlier
 * (a byte offset inside a multi-byte character rounds inwards). Offsets asked of each must not decrease.
 */
class ByteWalker {
  private char = 0;
  private byte = 0;
  constructor(private readonly text: string) {}

  private nextLength(): number {
    return utf8Length(this.text.codePointAt(this.char) as number);
  }

  private step(): void {
    const code = this.text.codePointAt(this.char) as number;
    this.byte += utf8Length(code);
    this.char += code > 0xffff ? 2 : 1;
  }

  atOrAfter(byte: number): number {
    while (this.char < this.text.length && this.byte < byte) this.step();
    return this.char;
  }

  before(byte: number): number {
    while (this.char < this.text.length && this.byte + this.nextLength() <= byte) this.step();
    return this.char;
  }
}

/** Leading characters a chunk drops: U+FFFD (a cut character) and white space. */
const leadingDropped = (s: string): number => {
  const a = s.replace(/^\uFFFD+/, '');
  return s.length - a.trimStart().length;
};
/** Trailing characters a chunk drops. */
const trailingDropped = (s: string): number => {
  const a = s.replace(/\uFFFD+$/, '');
  return s.length - a.trimEnd().length;
};

/**
 * Windows of `size` tokens overlapping by `overlap` over a text, each prefixed with `prefix` (its tokens not counted
 * in `size`); spans are offsets into the text plus `base`.
 */
function tokenWindows(text: string, size: number, overlap: number, prefix = '', base = 0): Piece[] {
  const tokens = encodeBounded(text);
  const offsets = byteOffsets(tokens);
  const starts = new ByteWalker(text);
  const ends = new ByteWalker(text);
  const prefixTokens = prefix ? countTokens(prefix) : 0;
  const step = Math.max(1, size - Math.min(overlap, size - 1));
  const out: Piece[] = [];
  for (let start = 0; start < tokens.length; start += step) {
    const end = Math.min(start + size, tokens.length);
    const from = starts.atOrAfter(offsets[start]!);
    const to = Math.max(from, ends.before(offsets[end]!));
    const raw = text.slice(from, to);
    const lead = leadingDropped(raw);
    const content = raw.slice(lead, raw.length - trailingDropped(raw));
    if (content)
      out.push({ content: prefix + content, tokenCount: prefixTokens + end - start, start: base + from + lead, end: base + from + lead + content.length });
    if (start + size >= tokens.length) break;
  }
  return out;
}

/** A row of a pipe table: its text and where it starts in the section's text. */
interface TableRow {
  text: string;
  start: number;
}

/** A Markdown pipe table in a section's text: its character range, its header (header row and rule line) and its rows. */
interface TableSpan {
  start: number;
  end: number;
  header: string;
  rows: TableRow[];
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
    const rows = lines.slice(i + 2, last).map((row, k) => ({ text: row, start: starts[i + 2 + k]! }));
    tables.push({ start: starts[i]!, end, header: `${lines[i]}\n${lines[i + 1]}`, rows });
    i = last - 1;
  }
  return tables;
}

/**
 * Rows under a header as one chunk, halved until each part's exact count fits (tokens can merge across lines). Its
 * span runs from `from` (the table's start for its first chunk, which holds the header itself; else the first row).
 */
function fitRows(prefix: string, rows: TableRow[], size: number, from: number): Piece[] {
  const content = prefix + rows.map((r) => r.text).join('\n');
  const tokenCount = countTokens(content);
  const last = rows[rows.length - 1] as TableRow;
  if (tokenCount <= size || rows.length === 1) return [{ content, tokenCount, start: from, end: last.start + last.text.length }];
  const half = Math.ceil(rows.length / 2);
  const second = rows[half] as TableRow;
  return [...fitRows(prefix, rows.slice(0, half), size, from), ...fitRows(prefix, rows.slice(half), size, second.start)];
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
  let rows: TableRow[] = [];
  let used = 0;
  const flush = () => {
    if (rows.length) out.push(...fitRows(prefix, rows, size, out.length === 0 ? table.start : (rows[0] as TableRow).start));
    rows = [];
    used = 0;
  };
  for (const row of table.rows) {
    const cost = countTokens(`${row.text}\n`);
    if (cost > budget) {
      flush();
      out.push(...tokenWindows(row.text, budget, 0, prefix, row.start));
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
    total += countTokens(`${row.text}\n`);
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
    if (text.slice(at, table.start).trim()) parts.push(...tokenWindows(text.slice(at, table.start), size, overlap, '', at));
    parts.push(...tableWindows(table, size));
    at = table.end;
  }
  if (text.slice(at).trim()) parts.push(...tokenWindows(text.slice(at), size, overlap, '', at));
  return parts.map((p, position) => ({ position, ...p }));
}
