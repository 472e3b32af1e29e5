import { analyse } from 'chardet';

/**
 * Decode text whose charset nobody declared. UTF-8 (and BOM-marked UTF-16) win when valid. Otherwise
 * each candidate (the CJK multi-byte charsets plus chardet's ranking of single-byte ones) is decoded
 * strictly and scored: the share of non-ASCII characters that are letters, times — for CJK charsets —
 * the share of double-byte codes in the charset's common area (kana and level-1 kanji/hanzi/hangul).
 * chardet alone ranks a 70-byte Shift-JIS CSV as windows-1252 (and ties Shift_JIS with GB18030);
 * the common-area test tells them apart, because Shift-JIS kanji lead bytes fall in GBK's rare area.
 */

const SAMPLE_BYTES = 64 * 1024;

/** Lead/trail byte tests for the frequent area of each CJK charset. */
const COMMON_AREA: Record<string, (lead: number, trail: number) => boolean> = {
  shift_jis: (l) => l >= 0x81 && l <= 0x9f, // JIS X 0208 rows 1–62: symbols, kana, level-1 kanji
  'euc-jp': (l) => l >= 0xa1 && l <= 0xcf,
  gb18030: (l, t) => l >= 0xa1 && l <= 0xd7 && t >= 0xa1, // GB2312 symbols and level-1 hanzi
  big5: (l) => l >= 0xa1 && l <= 0xc6, // Big5 symbols and frequent hanzi
  'euc-kr': (l, t) => l >= 0xa1 && l <= 0xc8 && t >= 0xa1, // KS X 1001 symbols and hangul
};

/** Share of double-byte codes that fall in the charset's common area (1 when there are none). */
function commonShare(bytes: Uint8Array, charset: string): number {
  const test = COMMON_AREA[charset];
  if (!test) return 1;
  let pairs = 0;
  let common = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] ?? 0;
    if (b < 0x80 || (charset === 'shift_jis' && b >= 0xa1 && b <= 0xdf)) continue;
    pairs++;
    if (test(b, bytes[i + 1] ?? 0)) common++;
    i++;
  }
  return pairs === 0 ? 1 : common / pairs;
}

/** Share of non-ASCII characters that are letters (not C1 controls, symbols or half-width katakana). */
function letterShare(text: string): number {
  let total = 0;
  let letters = 0;
  for (const ch of text) {
    if (ch.charCodeAt(0) < 0x80) continue;
    total++;
    if (/\p{L}/u.test(ch) && !/[\uFF61-\uFF9F\uFFFD]/.test(ch)) letters++;
  }
  return total === 0 ? 1 : letters / total;
}

function strictDecode(bytes: Uint8Array, charset: string): string | undefined {
  try {
    return new TextDecoder(charset, { fatal: true }).decode(bytes);
  } catch {
    return undefined; // unknown label or invalid bytes: not this charset
  }
}

/** The most plausible charset label for bytes that are not valid UTF-8. */
export function guessCharset(bytes: Uint8Array): string {
  const sample = cutAtBoundary(bytes.subarray(0, SAMPLE_BYTES), bytes.length);
  const ranked = analyse(sample).filter((m) => !/^(UTF|ASCII|ISO-2022)/i.test(m.name));
  const candidates = new Map<string, number>(Object.keys(COMMON_AREA).map((c) => [c, 0]));
  for (const m of ranked) candidates.set(m.name.toLowerCase(), Math.max(candidates.get(m.name.toLowerCase()) ?? 0, m.confidence));
  let best = { charset: 'windows-1252', score: -1 };
  for (const [charset, confidence] of candidates) {
    const text = strictDecode(sample, charset);
    if (text === undefined) continue;
    const score = letterShare(text) * commonShare(sample, charset) + confidence / 1000;
    if (score > best.score) best = { charset, score };
  }
  return best.charset;
}

/** A sample cut at the last line break, so a multi-byte character is never split by the sample's end. */
function cutAtBoundary(sample: Uint8Array, total: number): Uint8Array {
  if (sample.length === total) return sample;
  const nl = sample.lastIndexOf(0x0a);
  return nl > 0 ? sample.subarray(0, nl + 1) : sample;
}

function byteOrderMark(b: Uint8Array): { charset: string; length: number } | undefined {
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return { charset: 'utf-8', length: 3 };
  if (b[0] === 0xff && b[1] === 0xfe) return { charset: 'utf-16le', length: 2 };
  if (b[0] === 0xfe && b[1] === 0xff) return { charset: 'utf-16be', length: 2 };
  return undefined;
}

/** Decode bytes as text: BOM, then strict UTF-8, then the guessed charset. Line endings become \n. */
export function decodeUnknownText(bytes: Uint8Array): { text: string; charset: string } {
  const bom = byteOrderMark(bytes);
  const charset = bom?.charset ?? (strictDecode(bytes, 'utf-8') === undefined ? guessCharset(bytes) : 'utf-8');
  const text = new TextDecoder(charset).decode(bytes.subarray(bom?.length ?? 0));
  return { text: text.replace(/\r\n?/g, '\n'), charset };
}
