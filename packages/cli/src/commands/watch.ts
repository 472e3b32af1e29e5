import { setTimeout as sleep } from 'node:timers/promises';
import type { DocumentEvent } from '../api-types.ts';
import type { ApiClient } from '../client.ts';
import type { Command, Context } from '../command.ts';
import { CliError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { plural, status } from '../format.ts';
import { sseMessages } from '../sse.ts';

/** Backoff between reconnects: 0.5 s, doubling to 30 s; reset once a connection is open. */
const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 30_000;

/** Filenames of documents, looked up once each (events carry only ids). */
function filenames(api: ApiClient) {
  const cache = new Map<string, string>();
  return async (id: string): Promise<string> => {
    const known = cache.get(id);
    if (known) return known;
    const name = await api.json<{ filename: string }>('GET', `/documents/${id}`).then(
      (d) => d.filename,
      () => id,
    );
    cache.set(id, name);
    return name;
  };
}

async function printEvent(ctx: Context, e: DocumentEvent, name: (id: string) => Promise<string>): Promise<void> {
  if (ctx.out.json) return ctx.out.event(e);
  const time = new Date().toTimeString().slice(0, 8);
  const extra = e.sectionCount !== undefined ? `  ${plural(e.sectionCount, 'section')}` : '';
  ctx.out.line(`${ctx.out.out.dim(time)}  ${(await name(e.documentId)).padEnd(32)}  ${status(ctx.out.out, e.status)}${extra}`);
}

/** One connection: print events until the server closes the stream or the connection drops. */
async function follow(ctx: Context, api: ApiClient, id: string, opened: () => void): Promise<void> {
  const res = await api.send('GET', `/collections/${id}/documents/events`, {
    headers: { accept: 'text/event-stream' },
    timeoutMs: null,
    signal: ctx.signal,
    notFoundHint: 'pass -c <collection-id> or run `dossier collections list`',
  });
  opened();
  const name = filenames(api);
  for await (const m of sseMessages(res.body as AsyncIterable<Uint8Array>)) await printEvent(ctx, m as DocumentEvent, name);
}

export const watchCommand: Command = {
  name: 'watch',
  summary: 'Tail the document status events of a collection (reconnects by itself; Ctrl-C stops)',
  usage: ['watch [-c collection]'],
  description:
    'Prints a line per document status change (pending, uploading, processing, sectioned, embedded, ready, error).\n' +
    'When the connection drops it reconnects with backoff (0.5 s doubling to 30 s). Ctrl-C stops it with exit 0.\n' +
    'With --json, one DocumentEvent per line: {documentId, collectionId, status, sectionCount?}.',
  examples: ['dossier watch', 'dossier watch -c papers --json | jq -r "select(.status == \\"error\\") | .documentId"'],
  async run(ctx) {
    const id = await ctx.collection();
    const api = ctx.api({ keyRequired: false });
    let delay = FIRST_DELAY_MS;
    let everOpened = false;
    while (!ctx.signal.aborted) {
      try {
        await follow(ctx, api, id, () => {
          // Said once the server has subscribed us, so every change from now on is printed.
          ctx.out.info(ctx.out.err.dim(everOpened ? 'reconnected' : `watching collection ${id} (Ctrl-C to stop)`));
          everOpened = true;
          delay = FIRST_DELAY_MS;
        });
        if (ctx.signal.aborted) break;
        ctx.out.info(ctx.out.err.dim(`the server closed the stream; reconnecting in ${delay / 1000} s`));
      } catch (err) {
        if (ctx.signal.aborted) break;
        // Only a network or server failure is worth retrying, and only once the stream has worked at least once.
        const retryable = everOpened && (!(err instanceof CliError) || err.exitCode === EXIT.server);
        if (!retryable) throw err;
        ctx.out.info(ctx.out.err.dim(`connection lost (${err instanceof Error ? err.message : String(err)}); reconnecting in ${delay / 1000} s`));
      }
      await sleep(delay, undefined, { signal: ctx.signal }).catch(() => undefined);
      delay = Math.min(delay * 2, MAX_DELAY_MS);
    }
    return EXIT.ok;
  },
};
