/**
 * Decide a document's type from its bytes. The file name is only a hint between types that the
 * bytes cannot tell apart (Markdown vs plain text, CSV vs text, YAML vs text, source code), or
 * between OOXML kinds when a truncated package hides its parts; it never makes binary data pass as
 * text, and never makes one binary format pass as another.
 */

const MAGIC: { type: string; bytes: number[]; offset?: number }[] = [
  { type: 'application/pdf', bytes: [0x25, 0x50, 0x44, 0x46, 0x2d] },
  { type: 'application/zip', bytes: [0x50, 0x4b, 0x03, 0x04] },
  { type: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
  { type: 'image/gif', bytes: [0x47, 0x49, 0x46, 0x38] },
  { type: 'image/tiff', bytes: [0x49, 0x49, 0x2a, 0x00] },
  { type: 'image/tiff', bytes: [0x4d, 0x4d, 0x00, 0x2a] },
  { type: 'application/x-ole-storage', bytes: [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1] },
  { type: 'application/gzip', bytes: [0x1f, 0x8b] },
];

const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const PPTX_TYPE = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

const startsWith = (b: Uint8Array, sig: number[], offset = 0): boolean => b.length >= offset + sig.length && sig.every((x, i) => b[offset + i] === x);

/** True when the sample decodes as UTF-8 (or UTF-16 with a BOM) text with no NUL or control garbage. */
export function looksLikeText(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, 64 * 1024);
  if (startsWith(sample, [0xff, 0xfe]) || startsWith(sample, [0xfe, 0xff])) return true;
  let control = 0;
  for (const b of sample) {
    if (b === 0) return false;
    if (b < 0x09 || (b > 0x0d && b < 0x20 && b !== 0x1b)) control++;
  }
  return control <= sample.length * 0.01;
}

const extOf = (filename: string): string => filename.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1] ?? '';

// ---------------------------------------------------------------- zip packages (OOXML)

/** Most entry names read from a zip for sniffing; OOXML marker parts come early in real files. */
const MAX_SNIFF_ENTRIES = 4096;
const u16 = (b: Uint8Array, at: number): number => (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
const u32 = (b: Uint8Array, at: number): number => (u16(b, at) | (u16(b, at + 2) << 16)) >>> 0;
const latin = new TextDecoder('utf-8', { fatal: false });

/** Entry names from the central directory, or (truncated archive) by walking local headers. */
export function zipEntryNames(b: Uint8Array): { names: string[]; complete: boolean } {
  for (let at = b.length - 22; at >= Math.max(0, b.length - 22 - 0xffff); at--) {
    if (u32(b, at) === 0x06054b50) return { names: centralNames(b, u32(b, at + 16)), complete: true };
  }
  return { names: localNames(b), complete: false };
}

function centralNames(b: Uint8Array, offset: number): string[] {
  const names: string[] = [];
  for (let at = offset; names.length < MAX_SNIFF_ENTRIES && at + 46 <= b.length && u32(b, at) === 0x02014b50; ) {
    const n = u16(b, at + 28);
    names.push(latin.decode(b.subarray(at + 46, at + 46 + n)));
    at += 46 + n + u16(b, at + 30) + u16(b, at + 32);
  }
  return names;
}

function localNames(b: Uint8Array): string[] {
  const names: string[] = [];
  for (let at = 0; names.length < MAX_SNIFF_ENTRIES && at + 30 <= b.length && u32(b, at) === 0x04034b50; ) {
    const n = u16(b, at + 26);
    names.push(latin.decode(b.subarray(at + 30, at + 30 + n)));
    const size = u32(b, at + 18);
    if (size === 0 && u16(b, at + 6) & 0x08) break; // data descriptor: the size is unknown here
    at += 30 + n + u16(b, at + 28) + size;
  }
  return names;
}

/** The OOXML kind of a zip by its parts, else `application/zip`. */
function zipType(bytes: Uint8Array, filename: string): string {
  const { names, complete } = zipEntryNames(bytes);
  if (names.includes('word/document.xml') || names.some((n) => n.startsWith('word/'))) return DOCX_TYPE;
  if (names.some((n) => n.startsWith('ppt/'))) return PPTX_TYPE;
  if (names.some((n) => n.startsWith('xl/'))) return XLSX_TYPE;
  const opc = names.includes('[Content_Types].xml');
  // A cut-off package shows only its first parts: let the extension pick the kind so the converter
  // can say the file is truncated, instead of calling it an unsupported zip.
  if (opc && !complete) return ({ docx: DOCX_TYPE, pptx: PPTX_TYPE, xlsx: XLSX_TYPE } as Record<string, string>)[extOf(filename)] ?? 'application/zip';
  return 'application/zip';
}

// ---------------------------------------------------------------- text formats

const SOURCE_EXTENSIONS = new Set(
  'ts tsx mts cts js jsx mjs cjs py go rs java kt scala c h cc cpp cxx hpp cs rb php swift sh bash zsh sql r lua pl dart ex exs hs ml css scss vue svelte toml ini ps1'.split(
    ' ',
  ),
);

/** RFC 5322 header names that mark a message (one of them must appear). */
const MAIL_HEADERS = /^(from|to|cc|subject|received|mime-version|return-path|message-id|date|delivered-to|reply-to|sender)$/i;

/** A message: the head is header lines (or folded continuations) up to a blank line, with ≥ 2 known fields. */
export function looksLikeEmail(head: string): boolean {
  const end = head.search(/\r?\n\r?\n/);
  if (end < 0) return false;
  const lines = head.slice(0, end).split(/\r?\n/);
  if (lines[0]?.startsWith('From ')) lines.shift(); // mbox separator line
  let known = 0;
  for (const line of lines) {
    if (/^[ \t]+\S/.test(line)) continue;
    const name = /^([!-9;-~]+):/.exec(line)?.[1];
    if (!name) return false;
    if (MAIL_HEADERS.test(name)) known++;
  }
  return known >= 2;
}

/** Delimiter counts per record for the first records; quoted fields may hold delimiters and line breaks. */
function delimiterCounts(head: string, d: string, maxRecords = 20): number[] {
  const counts: number[] = [];
  let n = 0;
  let quoted = false;
  let empty = true;
  for (const ch of head) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === d) n++;
    else if (!quoted && ch === '\n') {
      if (!empty) counts.push(n);
      if (counts.length >= maxRecords) return counts;
      n = 0;
      empty = true;
      continue;
    }
    if (ch.trim() !== '') empty = false;
  }
  // The last record counts only when the sample holds the whole file (else it may be cut short),
  // or when it is the only one (a single very wide row).
  if (!empty && (head.length < 16384 || counts.length === 0)) counts.push(n);
  return counts;
}

/** True when most of the first records split into the same number (≥ 2) of fields on one delimiter. */
export function consistentDelimiter(head: string, delimiters: string[]): boolean {
  return delimiters.some((d) => {
    const counts = delimiterCounts(head, d);
    const first = counts[0] ?? 0;
    return first > 0 && counts.filter((c) => c === first).length >= Math.ceil(counts.length * 0.8);
  });
}

const MAX_JSON_SNIFF_BYTES = 8 * 1024 * 1024;

function parsesAsJson(bytes: Uint8Array): boolean {
  if (bytes.length > MAX_JSON_SNIFF_BYTES) return false;
  try {
    JSON.parse(new TextDecoder('utf-8').decode(bytes));
    return true;
  } catch {
    return false; // not JSON: fall through to the other text types
  }
}

/** reStructuredText markers beyond setext-like underlines (which Markdown shares). */
const RST_MARKERS = /^\.\. [\w-]+::|^\.\. _[^:]+:|``\S|:[a-z]+:`|^([=\-~^"'*+#])\1{2,}\n.+\n\1{3,}$/m;
const UNDERLINED_TITLE = /^\S.*\n([=\-~^"'*+#])\1{2,}\s*$/m;

function textType(bytes: Uint8Array, filename: string): string {
  const head = new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, 16384)).replace(/^\uFEFF/, '');
  const lower = head.trimStart().slice(0, 4096).toLowerCase();
  if (/^(<!doctype html|<html|<head|<body)/.test(lower) || (lower.startsWith('<') && /<(html|body|div|p)[\s>]/.test(lower))) {
    return 'text/html';
  }
  const ext = extOf(filename);
  if (ext === 'md' || ext === 'markdown' || ext === 'mdx') return 'text/markdown';
  if (ext === 'htm' || ext === 'html') return 'text/html';
  if (looksLikeEmail(head.slice(0, 8192))) return 'message/rfc822';
  if (ext === 'json' || (/^\s*[[{]/.test(head) && parsesAsJson(bytes))) return 'application/json';
  if (ext === 'yaml' || ext === 'yml') return 'application/yaml';
  if (ext === 'csv' && consistentDelimiter(head, [',', ';', '\t', '|'])) return 'text/csv';
  if (ext === 'tsv' && consistentDelimiter(head, ['\t'])) return 'text/tab-separated-values';
  if (ext === 'rst' || ext === 'rest') return 'text/x-rst';
  if ((ext === '' || ext === 'txt') && UNDERLINED_TITLE.test(head) && RST_MARKERS.test(head)) return 'text/x-rst';
  if (SOURCE_EXTENSIONS.has(ext)) return 'text/x-source';
  return 'text/plain';
}

/** The detected content type of a file, or `application/octet-stream` when unknown. */
export function sniffType(bytes: Uint8Array, filename: string): string {
  for (const m of MAGIC) {
    if (!startsWith(bytes, m.bytes, m.offset)) continue;
    return m.type === 'application/zip' ? zipType(bytes, filename) : m.type;
  }
  if (looksLikeText(bytes)) return textType(bytes, filename);
  return 'application/octet-stream';
}
