import { STATUS_ORDER, statusRank } from '../api-types.ts';
import type { Output } from '../output.ts';
import { printable, truncate, truncateMiddle, visibleWidth } from '../style.ts';

/** One file's line: where it is in queued → sending → the pipeline statuses → ready / error / failed. */
export interface Row {
  label: string;
  state: string;
  detail: string;
}

/** Shows how each file is doing. */
export interface Progress {
  update(i: number, state: string, detail?: string): void;
  /** Stop drawing and give the terminal back: the live display is erased (the result table follows), the cursor shown. */
  finish(): void;
}

export const noProgress: Progress = { update() {}, finish() {} };

const FINAL_OK = new Set(['ready', 'uploaded', 'skipped']);
const FINAL_BAD = new Set(['error', 'failed']);

/**
 * The names the live display shows: the folder every file shares is left out (a folder upload would otherwise
 * repeat it on every line and, once shortened, leave nothing to tell the files apart). The table printed at the
 * end keeps the paths as given.
 */
export function displayLabels(labels: string[]): string[] {
  if (labels.length < 2) return labels;
  let common = labels[0] ?? '';
  for (const l of labels) {
    let i = 0;
    while (i < common.length && i < l.length && common[i] === l[i]) i++;
    common = common.slice(0, i);
  }
  const cut = Math.max(common.lastIndexOf('/'), common.lastIndexOf('\\')) + 1;
  return cut > 0 ? labels.map((l) => l.slice(cut)) : labels;
}

/** What the live display shows in `lines` terminal lines: every row, or a count line, the open rows that fit, and how many it hides. */
export function fitRows(rows: Row[], lines: number): { shown: Row[]; finished: number; hidden: number } {
  if (rows.length <= lines) return { shown: rows, finished: 0, hidden: 0 };
  const open = rows.filter((r) => !FINAL_OK.has(r.state) && !FINAL_BAD.has(r.state));
  const room = Math.max(1, lines - 2); // the count line above, the "more" line below
  const shown = open.slice(0, room);
  return { shown, finished: rows.length - open.length, hidden: open.length - shown.length };
}

/**
 * One line per file on stderr, redrawn in place with ANSI cursor movement (a terminal only). Redraws are
 * coalesced to one per 50 ms; with more files than the terminal has rows, finished files fold into a count and
 * the open files that do not fit are counted on a last line (issue 12: it says how many rows it hides).
 */
export function liveProgress(out: Output, rows: Row[]): Progress {
  const stream = out.streams.stderr;
  const s = out.err;
  // The label column shrinks on narrow terminals so a line never wraps (a wrapped line breaks the redraw).
  const cols = (stream as { columns?: number }).columns || 120; // 0 when a pseudo-terminal has no size
  const shown = displayLabels(rows.map((r) => r.label));
  const labels = new Map(rows.map((r, i) => [r, shown[i] ?? r.label]));
  const width = Math.max(8, Math.min(40, cols - 45, Math.max(...shown.map((l) => visibleWidth(printable(l))))));
  let drawn = 0;
  let timer: NodeJS.Timeout | null = null;
  let finished = false;
  const bar = (state: string) => {
    const k = Math.max(0, statusRank(state) + (state === 'error' ? 0 : 1));
    const cells = STATUS_ORDER.length;
    if (state === 'error' || state === 'failed') return s.red('■'.repeat(cells));
    const filled = Math.min(k, cells);
    return (filled ? s.green('■'.repeat(filled)) : '') + (filled < cells ? s.dim('□'.repeat(cells - filled)) : '');
  };
  const line = (r: Row) => {
    const mark = FINAL_OK.has(r.state) ? s.green('✓') : FINAL_BAD.has(r.state) ? s.red('✗') : s.cyan('•');
    // Shortened in the middle: the end of a name (what tells test.docx from test_with_comment.docx) stays visible.
    const label = truncateMiddle(printable(labels.get(r) ?? r.label), width);
    return `${mark} ${label}${' '.repeat(Math.max(0, width - visibleWidth(label)))}  ${bar(r.state)}  ${r.state}${r.detail ? s.dim(`  ${truncate(r.detail, 24)}`) : ''}`;
  };
  const view = (): string[] => {
    const max = Math.max(4, (stream as { rows?: number }).rows || 24) - 2;
    const { shown, finished, hidden } = fitRows(rows, max);
    if (shown.length === rows.length) return rows.map(line);
    const more = hidden ? [s.dim(`… and ${hidden} more file${hidden === 1 ? '' : 's'} in progress, not shown (terminal too small)`)] : [];
    return [s.dim(`${finished}/${rows.length} files finished`), ...shown.map(line), ...more];
  };
  const draw = () => {
    timer = null;
    const lines = view();
    let text = drawn ? `\x1b[${drawn}A` : '\x1b[?25l';
    for (const l of lines) text += `\x1b[2K${l}\n`;
    for (let i = lines.length; i < drawn; i++) text += '\x1b[2K\n';
    const extra = Math.max(0, drawn - lines.length);
    if (extra) text += `\x1b[${extra}A`;
    drawn = lines.length;
    stream.write(text);
  };
  draw();
  return {
    update(i, state, detail = '') {
      const r = rows[i];
      if (!r) return;
      r.state = state;
      r.detail = detail;
      if (!finished) timer ??= setTimeout(draw, 50);
    },
    finish() {
      if (finished) return;
      finished = true;
      if (timer) clearTimeout(timer);
      stream.write(`${drawn ? `\x1b[${drawn}A\x1b[0J` : ''}\x1b[?25h`);
    },
  };
}

/** A plain line per change on stderr (not a terminal, or a log file): `file: state`. */
export function plainProgress(out: Output, rows: Row[]): Progress {
  return {
    update(i, state, detail = '') {
      const r = rows[i];
      if (!r || (r.state === state && r.detail === detail)) return;
      r.state = state;
      r.detail = detail;
      out.info(`${r.label}: ${state}${detail ? ` (${detail})` : ''}`);
    },
    finish() {},
  };
}
