import { setTimeout as sleep } from 'node:timers/promises';
import { type Document, type DocumentEvent, statusRank, TERMINAL } from '../api-types.ts';
import type { ApiClient } from '../client.ts';
import { sseMessages } from '../sse.ts';

/**
 * Follows the uploaded documents on the collection's event stream until every one is ready or in error.
 * The stream is opened before the first upload, so no transition is missed; events for documents whose
 * upload answer has not arrived yet are kept until it does. Statuses only move forward: an event older than
 * what is known is ignored. When the stream drops it reconnects, and re-reads the unfinished documents.
 */
export class Tracker {
  private readonly status = new Map<string, string>();
  private readonly early = new Map<string, DocumentEvent>();
  private readonly stop = new AbortController();
  private uploadsFinished = false;
  private resolveDone!: () => void;
  /** Resolves once uploads are over and every tracked document is terminal. */
  readonly done = new Promise<void>((r) => {
    this.resolveDone = r;
  });

  constructor(
    private readonly api: ApiClient,
    private readonly collection: string,
    private readonly signal: AbortSignal,
    /** Called for each forward status change of a tracked document. */
    private readonly onChange: (documentId: string, event: DocumentEvent) => void,
  ) {}

  /** Open the stream (resolves once the server has subscribed us), then read it in the background. */
  async start(): Promise<void> {
    const first = await this.connect();
    void this.pump(first);
  }

  /** A document the upload created (or found, on a content-hash hit). */
  track(doc: Document): void {
    this.status.set(doc.id, doc.status);
    const early = this.early.get(doc.id);
    this.early.delete(doc.id);
    if (early) this.apply(early);
    this.check();
  }

  /** No more documents will be tracked. */
  uploadsDone(): void {
    this.uploadsFinished = true;
    this.check();
  }

  private apply(e: DocumentEvent): void {
    const known = this.status.get(e.documentId);
    if (known === undefined) {
      this.early.set(e.documentId, e);
      return;
    }
    if (TERMINAL.has(known) || statusRank(e.status) < statusRank(known)) return;
    this.status.set(e.documentId, e.status);
    this.onChange(e.documentId, e);
    this.check();
  }

  private check(): void {
    if (!this.uploadsFinished || [...this.status.values()].some((s) => !TERMINAL.has(s))) return;
    this.stop.abort();
    this.resolveDone();
  }

  private connect(): Promise<Response> {
    return this.api.send('GET', `/collections/${this.collection}/documents/events`, {
      headers: { accept: 'text/event-stream' },
      timeoutMs: null,
      signal: AbortSignal.any([this.signal, this.stop.signal]),
    });
  }

  private async pump(res: Response): Promise<void> {
    try {
      for (;;) {
        try {
          for await (const m of sseMessages(res.body as AsyncIterable<Uint8Array>)) this.apply(m as DocumentEvent);
        } catch {
          // dropped: reconnect below
        }
        if (this.stop.signal.aborted || this.signal.aborted) return;
        res = await this.reconnect();
      }
    } catch {
      // stopped (done, or Ctrl-C) while reconnecting
    }
  }

  /** Reconnect with backoff, then catch up on the documents still in flight (events may have been missed). */
  private async reconnect(): Promise<Response> {
    for (let delay = 250; ; delay = Math.min(delay * 2, 10_000)) {
      await sleep(delay, undefined, { signal: AbortSignal.any([this.signal, this.stop.signal]) });
      try {
        const res = await this.connect();
        for (const [id, s] of this.status) {
          if (TERMINAL.has(s)) continue;
          const doc = await this.api.json<Document>('GET', `/documents/${id}`);
          this.apply({ documentId: id, collectionId: doc.collectionId, status: doc.status });
        }
        return res;
      } catch {
        // still down: try again
      }
    }
  }
}
