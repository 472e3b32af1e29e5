import { setMaxListeners } from 'node:events';
import type { Document, DocumentEvent } from '../api-types.ts';
import type { ApiClient } from '../client.ts';
import type { Command, Context } from '../command.ts';
import { CliError, usageError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { intFlag, many, parseMetadata } from '../filters.ts';
import { num, plural, status } from '../format.ts';
import { aborted, pool } from '../pool.ts';
import { expandInputs, type Payload, stdinPayload } from '../upload/inputs.ts';
import { liveProgress, noProgress, type Progress, plainProgress, type Row } from '../upload/progress.ts';
import { Pace } from '../upload/pace.ts';
import { type Sent, send } from '../upload/send.ts';
import { Tracker } from '../upload/tracker.ts';
import { waitForDocument } from '../wait.ts';

/** Errors that would fail every file the same way: stop at the first instead of repeating it per file. */
const FATAL: readonly number[] = [EXIT.notFound, EXIT.auth, EXIT.missingKey, EXIT.server];

/** What happened to one file. */
interface Outcome {
  payload: Payload;
  sent?: Sent;
  /** The collection already had this content: nothing was uploaded (the document is the existing one). */
  skipped?: boolean;
  /** The document's last known state (after --watch or --wait, its final one). */
  document?: Document;
  error?: CliError;
}

interface Plan {
  api: ApiClient;
  collection: string;
  payloads: Payload[];
  mode: 'watch' | 'wait' | 'none';
  concurrency: number;
  tags: string[];
  metadata?: Record<string, unknown>;
}

async function plan(ctx: Context): Promise<Plan> {
  const api = ctx.api();
  if (ctx.positionals.length === 0) throw usageError('nothing to upload', 'give files, folders, globs, or - for stdin: dossier upload ./docs "notes/**/*.md"');
  if (ctx.values.watch && ctx.values.wait)
    throw usageError('--watch and --wait are two ways to wait: pick one', '--watch shows progress, --wait waits silently');
  const concurrency = intFlag(ctx.values, 'concurrency', 1, 64) ?? 8;
  const metadata = parseMetadata(many(ctx.values, 'metadata'));
  const { files, stdinAt } = await expandInputs(ctx.positionals);
  const filename = typeof ctx.values.filename === 'string' ? ctx.values.filename : undefined;
  if (filename !== undefined && stdinAt === null) throw usageError('--filename names the file read from stdin, but - is not among the inputs');
  const collection = await ctx.collection();
  if (stdinAt !== null) {
    if (ctx.stdin.isTTY)
      throw usageError(
        '- reads the file from stdin, but stdin is a terminal',
        'pipe or redirect a file in: cat notes.md | dossier upload - --filename notes.md',
      );
    files.splice(stdinAt, 0, await stdinPayload(ctx.stdin, filename ?? 'stdin'));
  }
  const mode = ctx.values.watch ? 'watch' : ctx.values.wait ? 'wait' : 'none';
  return { api, collection, payloads: files, mode, concurrency, tags: many(ctx.values, 'tag'), ...(metadata ? { metadata } : {}) };
}

function progressFor(ctx: Context, p: Plan): Progress {
  if (ctx.out.json || p.mode === 'wait') return noProgress; // --wait blocks silently; JSON has its own events
  const rows: Row[] = p.payloads.map((f) => ({ label: f.label === '-' ? `- (${f.name})` : f.label, state: 'queued', detail: '' }));
  return ctx.out.stderrIsTTY ? liveProgress(ctx.out, rows) : plainProgress(ctx.out, rows);
}

const SKIPPED_NOTE = 'same content already in the collection';
const sentDetail = (s: Sent) => (s.reused ? SKIPPED_NOTE : '');

/** The server's pace for this run's requests, telling the user (or the NDJSON stream) when the server is busy. */
function paceFor(ctx: Context, p: Plan): Pace {
  let lastNote = 0;
  setMaxListeners(4 * p.concurrency + 32, ctx.signal); // every waiting upload listens for Ctrl-C
  return new Pace(p.concurrency, (status, waitMs, allowed) => {
    if (ctx.out.json) return ctx.out.event({ type: 'busy', status, retryInMs: Math.round(waitMs), concurrency: allowed });
    if (Date.now() - lastNote < 5000) return; // one note per 5 s, however many uploads were turned away
    lastNote = Date.now();
    ctx.out.info(`the server is busy (HTTP ${status}): ${allowed} upload${allowed === 1 ? '' : 's'} at once, retrying in ${(waitMs / 1000).toFixed(1)} s`);
  });
}

/** Upload every payload with bounded concurrency; per-file failures are recorded, fatal ones stop the run. */
async function uploadAll(ctx: Context, p: Plan, pace: Pace, progress: Progress, onSent: (i: number, doc: Document) => void): Promise<Outcome[]> {
  const outcomes: Outcome[] = p.payloads.map((payload) => ({ payload }));
  const attempt = <T>(request: () => Promise<T>) => pace.run(request, ctx.signal);
  const options = {
    tags: p.tags,
    metadata: p.metadata,
    presigned: Boolean(ctx.values.presigned),
    force: Boolean(ctx.values.force),
    signal: ctx.signal,
    attempt,
  };
  await pool(p.payloads, p.concurrency, async (payload, i) => {
    progress.update(i, 'sending');
    try {
      const sent = await send(p.api, p.collection, payload, options);
      outcomes[i] = { payload, sent, document: sent.document, skipped: sent.reused };
      if (sent.reused) {
        if (ctx.out.json) ctx.out.event({ type: 'skipped', file: payload.label, filename: payload.name, reason: SKIPPED_NOTE, document: sent.document });
        progress.update(i, 'skipped', SKIPPED_NOTE);
        return;
      }
      if (ctx.out.json) ctx.out.event({ type: 'uploaded', file: payload.label, filename: payload.name, via: sent.via, document: sent.document });
      progress.update(i, p.mode === 'watch' ? sent.document.status : 'uploaded', sentDetail(sent));
      onSent(i, sent.document);
    } catch (err) {
      if (!(err instanceof CliError) || FATAL.includes(err.exitCode)) throw err;
      outcomes[i] = { payload, error: err };
      if (ctx.out.json) ctx.out.event({ type: 'failed', file: payload.label, filename: payload.name, error: err.message });
      progress.update(i, 'failed', err.message);
    }
  });
  return outcomes;
}

/** --watch: show each status change until every document is terminal, then read the final documents. */
async function watchAll(ctx: Context, p: Plan, pace: Pace, outcomes: Outcome[], tracker: Tracker, progress: Progress): Promise<void> {
  tracker.uploadsDone();
  await Promise.race([tracker.done, aborted(ctx.signal)]);
  await pool(outcomes, 8, async (o) => {
    const doc = o.document;
    if (doc && !o.skipped) o.document = await pace.run(() => p.api.json<Document>('GET', `/documents/${doc.id}`), ctx.signal);
  });
  outcomes.forEach((o, i) => {
    if (o.document && !o.skipped) progress.update(i, o.document.status, o.document.status === 'error' ? (o.document.errorMessage ?? '') : sections(o.document));
  });
}

const sections = (d: Document) =>
  d.sectionCount !== null ? `${plural(d.sectionCount, 'section')}${d.chunkCount !== null ? `, ${plural(d.chunkCount, 'chunk')}` : ''}` : '';

async function waitAll(ctx: Context, p: Plan, pace: Pace, outcomes: Outcome[]): Promise<void> {
  await pool(outcomes, 16, async (o) => {
    const doc = o.document;
    if (doc && !o.skipped) o.document = await pace.run(() => waitForDocument(p.api, doc.id, ctx.signal), ctx.signal);
  });
}

function report(ctx: Context, p: Plan, outcomes: Outcome[]): number {
  const failed = outcomes.filter((o) => o.error).length;
  const skipped = outcomes.filter((o) => o.skipped).length;
  const errored = outcomes.filter((o) => !o.skipped && o.document?.status === 'error').length;
  if (ctx.out.json) {
    if (p.mode !== 'none')
      for (const o of outcomes)
        if (o.document && !o.skipped) ctx.out.event({ type: 'done', file: o.payload.label, filename: o.payload.name, document: o.document });
  } else {
    const s = ctx.out.out;
    ctx.out.table(
      ['FILE', 'DOCUMENT', 'STATUS', 'SECTIONS', 'CHUNKS', 'NOTE'],
      outcomes.map((o) => [
        o.payload.label === '-' ? `- (${o.payload.name})` : o.payload.label,
        o.document?.id ?? '-',
        o.error ? s.red('failed') : o.skipped ? s.dim('skipped') : status(s, o.document?.status ?? '-'),
        num(o.document?.sectionCount),
        num(o.document?.chunkCount),
        o.error?.message ?? o.document?.errorMessage ?? (o.sent ? sentDetail(o.sent) : ''),
      ]),
    );
    const ok = outcomes.length - failed - errored - skipped;
    const what = p.mode === 'none' ? 'uploaded' : 'ready';
    const skip = skipped ? `, ${skipped} skipped (same content already in the collection; --force uploads ${skipped === 1 ? 'it' : 'them'} again)` : '';
    const follow = p.mode === 'none' && ok > 0 ? ' (processing continues on the server; --watch or --wait to follow it)' : '';
    ctx.out.info(`${ok} ${what}${skip}${failed ? `, ${failed} failed to upload` : ''}${errored ? `, ${errored} in error` : ''}${follow}`);
  }
  return failed || errored ? EXIT.failure : EXIT.ok;
}

export const uploadCommand: Command = {
  name: 'upload',
  summary: 'Upload files, folders, globs or stdin (-); optionally follow them until ready',
  usage: ['upload <path|folder|glob|->... [--watch | --wait] [--concurrency n] [--tag t]... [--metadata k=v]...'],
  description:
    'Folders are uploaded recursively (hidden files skipped); quote globs to let dossier expand them ("docs/**/*.md").\n' +
    'Each file is announced with its SHA-256 through the presigned flow (upload-url, PUT, confirm): a file whose content\n' +
    'the collection already holds is skipped, and the summary says how many were; --force uploads them again (files up to\n' +
    '25 MB directly). Exit 1 when a file fails to upload or (with --watch/--wait) ends in error; skipped files are not failures.\n' +
    'With --json: NDJSON events {type, file, …}: uploaded, skipped and done carry filename and document, failed the error,\n' +
    '(with --watch) status the documentId and status of each change, and busy {status, retryInMs, concurrency} each\n' +
    'time the server turned an upload away.\n' +
    "Large folders go at the server's pace: a busy answer (429/503) halves the uploads in flight and is retried after its\n" +
    'Retry-After; each success lets one more start again. An interrupted run resumes when run again: files already stored\n' +
    'are recognised by their hash (a file stored but not yet confirmed is confirmed), so none is uploaded twice.',
  options: {
    watch: { type: 'boolean', short: 'w' },
    wait: { type: 'boolean' },
    concurrency: { type: 'string', short: 'j' },
    tag: { type: 'string', multiple: true },
    metadata: { type: 'string', multiple: true },
    filename: { type: 'string' },
    presigned: { type: 'boolean' },
    force: { type: 'boolean', short: 'f' },
  },
  optionHelp: [
    ['-w, --watch', 'follow the status events until every document is ready or in error (live display on a terminal)'],
    ['--wait', 'block silently until every document is ready or in error'],
    ['-j, --concurrency <n>', 'most files sent at once, 1 to 64 (default 8); fewer while the server answers 429/503, which are retried'],
    ['--tag <name>', 'tag every document (repeatable)'],
    ['--metadata <k=v>', 'metadata on every document; values are JSON when they parse: year=2024 is a number (repeatable)'],
    ['--filename <name>', 'the name of the file read from stdin (default: stdin)'],
    ['-f, --force', 'upload files even when the collection already has the same content (default: skip them)'],
    ['--presigned', 'with --force: use the presigned flow for small files too (the default without --force)'],
  ],
  examples: [
    'dossier upload ./reports --watch',
    'dossier upload "papers/**/*.pdf" --tag papers --metadata year=2024 -j 8',
    'curl -s https://example.com/notes.md | dossier upload - --filename notes.md --wait',
    'dossier upload big.pdf --json | jq -r "select(.type == \\"uploaded\\") | .document.id"',
  ],
  async run(ctx) {
    const p = await plan(ctx);
    const progress = progressFor(ctx, p);
    const index = new Map<string, number>(); // document id → file
    const onChange = (id: string, e: DocumentEvent) => {
      const i = index.get(id) ?? -1;
      const sections = e.sectionCount !== undefined ? { sectionCount: e.sectionCount } : {};
      progress.update(i, e.status, e.sectionCount !== undefined ? plural(e.sectionCount, 'section') : '');
      if (ctx.out.json) ctx.out.event({ type: 'status', file: p.payloads[i]?.label ?? null, documentId: id, status: e.status, ...sections });
    };
    const tracker = p.mode === 'watch' ? new Tracker(p.api, p.collection, ctx.signal, onChange) : null;
    try {
      await tracker?.start(); // subscribed before the first upload, so no status change is missed
      const pace = paceFor(ctx, p);
      const outcomes = await uploadAll(ctx, p, pace, progress, (i, doc) => {
        index.set(doc.id, i);
        tracker?.track(doc);
      });
      if (tracker) await watchAll(ctx, p, pace, outcomes, tracker, progress);
      else if (p.mode === 'wait') await waitAll(ctx, p, pace, outcomes);
      progress.finish();
      return report(ctx, p, outcomes);
    } finally {
      progress.finish();
    }
  },
};
