import { createRequire } from 'node:module';
import path from 'node:path';
import { DossierError } from '@dossier/core/conversion';
import type { Run } from './types.ts';
import { importOptional, withOptional } from '../../optional.ts';

interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

interface OcrWord {
  text: string;
  confidence: number;
  bbox: Box;
  /** Set here: a table rule stood just before the word. */
  ruleBefore?: boolean;
}

interface OcrLine {
  bbox: Box;
  baseline?: Box;
  words: OcrWord[];
}

/** The part of a tesseract.js worker Dossier uses. */
interface TesseractWorker {
  setParameters(params: Record<string, string>): Promise<unknown>;
  recognize(
    image: Uint8Array | Buffer,
    opts: Record<string, unknown>,
    output: Record<string, boolean>,
  ): Promise<{ data: { blocks: { paragraphs: { lines: OcrLine[] }[] }[] | null } }>;
  terminate(): Promise<unknown>;
  /** The Node worker thread behind it. */
  worker?: { ref?(): void; unref?(): void };
}

interface TesseractLib {
  createWorker(langs: string, oem: number, options: Record<string, unknown>): Promise<TesseractWorker>;
}

/** LSTM only: the engine `@tesseract.js-data/eng`'s `4.0.0_best_int` data is made for. */
const OEM_LSTM_ONLY = 1;
/** Fully automatic page segmentation, without orientation detection. */
const PSM_AUTO = '3';
/** The OCR worker ends after this long unused, so an idle thread or CLI is not kept alive by it. */
const IDLE_MS = 15_000;
/**
 * Words without two letters or digits in a row that tesseract is less sure of than this (percent) are specks,
 * rules and stamp fragments. Real words are kept however unsure: LSTM confidence is a poor judge of them
 * (in pdf-with-ocr-text.pdf "Central" and "Corporation" scored 0 and 14).
 */
const SPECK_CONFIDENCE = 60;
const isSpeck = (text: string, confidence: number): boolean => text !== '•' && !/[\p{L}\p{N}]{2}/u.test(text) && confidence < SPECK_CONFIDENCE;
/** How tesseract tends to read a bullet glyph when it starts a line: «, +, *, =, ©, °, ·, ■ … */
const OCR_BULLET = /^[«»+*=©°·•■▪●]$/;
/** Cap height as a share of the em in common text fonts (Helvetica 0.72, Times 0.66, Calibri 0.64). */
const CAP_HEIGHT_PER_EM = 0.7;

let worker: Promise<TesseractWorker> | undefined;
let idleTimer: NodeJS.Timeout | undefined;
/** OCR jobs in flight on this thread. */
let active = 0;

/**
 * Where everything tesseract.js needs lives on disk. The English model comes from `@tesseract.js-data/eng`
 * (never a CDN: `langPath` is a local folder and `cacheMethod: 'none'` stops cache writes); the worker script
 * is tesseract.js's own Node one, and in Node the wasm core is `require`d from `tesseract.js-core`.
 */
function localPaths(): { langPath: string; workerPath: string } {
  const require = createRequire(import.meta.url);
  const resolveData = () => require.resolve('@tesseract.js-data/eng/package.json');
  const data = path.dirname(withOptional('@tesseract.js-data/eng', 'OCR of scanned pages (English model data)', resolveData));
  const tess = path.dirname(require.resolve('tesseract.js/package.json'));
  return { langPath: path.join(data, '4.0.0_best_int'), workerPath: path.join(tess, 'src', 'worker-script', 'node', 'index.js') };
}

async function startWorker(): Promise<TesseractWorker> {
  const lib = await importOptional<{ default?: TesseractLib } & TesseractLib>('tesseract.js', 'OCR of scanned pages');
  const tesseract = lib.default ?? lib;
  const w = await tesseract.createWorker('eng', OEM_LSTM_ONLY, {
    ...localPaths(),
    cacheMethod: 'none',
    gzip: true,
    // Without a handler tesseract.js rethrows a failed job from an event listener, killing the thread.
    errorHandler: () => undefined,
  });
  return w;
}

/** The thread's OCR worker, started on first use and reused until idle. */
function ocrWorker(): Promise<TesseractWorker> {
  if (idleTimer) clearTimeout(idleTimer);
  worker ??= startWorker().catch((err: unknown) => {
    worker = undefined;
    throw new DossierError('conversion_failed', 'OCR could not start', { cause: err });
  });
  return worker;
}

function scheduleIdleStop(): void {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = setTimeout(() => void closeOcr(), IDLE_MS);
  idleTimer.unref();
}

/** Stop this thread's OCR worker (it restarts on the next OCR). */
export async function closeOcr(): Promise<void> {
  if (idleTimer) clearTimeout(idleTimer);
  const w = worker;
  worker = undefined;
  if (w) await (await w.catch(() => undefined))?.terminate();
}

/** Baseline height at x, from tesseract's baseline segment, falling back to the box bottom. */
function baselineAt(line: OcrLine, x: number): number {
  const b = line.baseline;
  if (!b || b.x1 === b.x0) return line.bbox.y1;
  return b.y0 + ((b.y1 - b.y0) * (x - b.x0)) / (b.x1 - b.x0);
}

/**
 * A line's font size (em) in pixels, the smaller of two estimates, since tesseract sometimes gives a word a
 * box as tall as the whole row pitch (which only ever inflates them): the lower quartile of words standing as
 * tall as the cap height (a capital, digit or ascender, nothing below the baseline; cap height ≈ 0.7 em), and
 * the line's box (≈ 1 em with descenders, ≈ 0.7 em without).
 */
function emOf(line: OcrLine): number {
  const tall = line.words
    .filter((w) => w.text.length >= 2 && /[A-Z0-9bdfhklt]/.test(w.text) && !/[gjpqy,;()[\]{}|/@$§]/.test(w.text))
    .map((w) => w.bbox.y1 - w.bbox.y0)
    .sort((a, b) => a - b);
  const low = tall[Math.floor(tall.length / 4)];
  const text = line.words.map((w) => w.text).join(' ');
  const box = (line.bbox.y1 - line.bbox.y0) / (/[gjpqy(),;[\]{}|]/.test(text) ? 1 : CAP_HEIGHT_PER_EM);
  return low !== undefined ? Math.min(low / CAP_HEIGHT_PER_EM, box) : box;
}

/** A word cut at its `|` characters, each piece given its share of the box by character count. */
function splitAtBars(w: OcrWord): OcrWord[] {
  const perChar = (w.bbox.x1 - w.bbox.x0) / Math.max(1, w.text.length);
  const out: OcrWord[] = [];
  let at = 0;
  for (const piece of w.text.split('|')) {
    const x0 = w.bbox.x0 + at * perChar;
    if (piece.trim()) out.push({ ...w, text: piece, bbox: { ...w.bbox, x0, x1: x0 + piece.length * perChar }, ruleBefore: at > 0 || w.ruleBefore });
    at += piece.length + 1;
  }
  return out;
}

/**
 * A ruled table's vertical lines come out of OCR as `|`, glued to words ("Processing|total", "128|") or alone
 * at a line's ends or standing apart from its neighbours. Those are rules: removed, and the text on each side
 * kept in separate cells. A lone `|` set like a word is kept as text ("Seattle, WA 98101 | (206) 555-0100").
 */
function withoutRules(words: OcrWord[], em: number): OcrWord[] {
  const bars = words.filter((w) => w.text === '|').length;
  const apart = (i: number): boolean => {
    const [prev, w, next] = [words[i - 1], words[i] as OcrWord, words[i + 1]];
    return !!prev && !!next && w.bbox.x0 - prev.bbox.x1 > 0.45 * em && next.bbox.x0 - w.bbox.x1 > 0.45 * em;
  };
  return words.flatMap((w, i) => {
    if (w.text !== '|') return w.text.includes('|') ? splitAtBars(w) : [w];
    if (i === 0 || i === words.length - 1 || bars >= 2 || apart(i)) {
      const next = words[i + 1];
      if (next) next.ruleBefore = true;
      return [];
    }
    return [w];
  });
}

/** Tesseract lines as runs (one per word) in page points: pixels divided by `scale`. */
function toRuns(lines: OcrLine[], scale: number): Run[] {
  const runs: Run[] = [];
  for (const line of lines) {
    const em = emOf(line);
    const size = em / scale;
    withoutRules(line.words, em).forEach((w, i) => {
      const text = i === 0 && OCR_BULLET.test(w.text.trim()) ? '•' : w.text.trim();
      if (!text || isSpeck(text, w.confidence)) return;
      const x = w.bbox.x0 / scale;
      // The trailing space keeps words apart however tight tesseract's boxes are; cells are trimmed later.
      const run: Run = { text: `${text} `, x, y: baselineAt(line, w.bbox.x0) / scale, width: (w.bbox.x1 - w.bbox.x0) / scale, size, bold: false, mono: false };
      runs.push(w.ruleBefore ? { ...run, cellStart: true } : run);
    });
  }
  return runs;
}

/**
 * OCR an image (PNG, JPEG, GIF or BMP bytes; English) into word runs, positioned in points given the
 * image's pixels-per-point `scale`, ready for the same layout as a PDF text layer.
 */
export async function ocrRuns(image: Uint8Array, scale: number): Promise<Run[]> {
  const w = await ocrWorker();
  // Held only while jobs run: an idle OCR thread must not keep a CLI process from exiting.
  if (active++ === 0) w.worker?.ref?.();
  try {
    // tesseract.js defaults to one uniform block (PSM 6), which loses large titles; PSM 3 segments the page.
    await w.setParameters({ tessedit_pageseg_mode: PSM_AUTO, user_defined_dpi: String(Math.round(scale * 72)) });
    const { data } = await w.recognize(Buffer.from(image.buffer, image.byteOffset, image.byteLength), {}, { blocks: true, text: false });
    const lines = (data.blocks ?? []).flatMap((b) => b.paragraphs.flatMap((p) => p.lines));
    return toRuns(lines, scale);
  } catch (err) {
    if (err instanceof DossierError) throw err;
    throw new DossierError('conversion_failed', 'The image could not be read for OCR: it is corrupt or in an unsupported encoding', { cause: err });
  } finally {
    if (--active === 0) {
      w.worker?.unref?.();
      scheduleIdleStop();
    }
  }
}
