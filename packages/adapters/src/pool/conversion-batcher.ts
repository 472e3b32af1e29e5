import { DossierError, type PreparedDocument, type PrepareInput } from '@dossier/core';
import { SharedCalls } from '@dossier/core/internal';
import type { ConvertReply } from './convert-worker.ts';

/** Documents sent to a conversion thread in one task at most (small ones: at most 1 MiB of originals a task). */
export const BATCH_DOCUMENTS = 16;

/** One caller's document waiting to be converted, and where its outcome goes. */
interface Waiting {
  input: PrepareInput;
  resolve: (prepared: PreparedDocument) => void;
  reject: (err: unknown) => void;
}

/** How the batcher reaches the pool: several documents in one task, or one alone. */
export interface BatchSender {
  /** Each document's reply, in order; rejects when the task itself failed (a time or memory limit, a crash). */
  convertBatch(inputs: PrepareInput[]): Promise<ConvertReply[]>;
  convertOne(input: PrepareInput): Promise<PreparedDocument>;
}

/**
 * Sends small documents to the conversion pool several to a task. A thread given one document a task finished it in
 * under a millisecond and then idled until the event loop, busy with the other documents' writes, handled the reply
 * and sent the next: converting SciFact, the thread idled half the time while 200 documents waited (issue 41).
 * Documents that arrive while `tasks` are in flight wait and go together in the next task, up to BATCH_DOCUMENTS
 * (SharedCalls, as the embedder's calls are shared).
 * A task that fails as a whole is made again one document a task, so one document that stops its thread fails alone,
 * with its own error, and the others convert.
 */
export class ConversionBatcher {
  private readonly calls: SharedCalls<Waiting>;

  constructor(
    private readonly sender: BatchSender,
    tasks: number,
  ) {
    this.calls = new SharedCalls({ calls: tasks, capacity: BATCH_DOCUMENTS, sizeOf: () => 1, send: (batch) => this.send(batch) });
  }

  convert(input: PrepareInput): Promise<PreparedDocument> {
    return new Promise((resolve, reject) => this.calls.add({ input, resolve, reject }));
  }

  private async send(batch: Waiting[]): Promise<void> {
    if (batch.length === 1) return this.sendAlone(batch[0]!);
    let replies: ConvertReply[];
    try {
      replies = await this.sender.convertBatch(batch.map((w) => w.input));
    } catch {
      await Promise.all(batch.map((w) => this.sendAlone(w)));
      return;
    }
    for (const [i, w] of batch.entries()) settleWith(w, replies[i]);
  }

  private async sendAlone(w: Waiting): Promise<void> {
    try {
      w.resolve(await this.sender.convertOne(w.input));
    } catch (err) {
      w.reject(err);
    }
  }
}

/** A document's own reply from a batch: its prepared document, or its error. */
function settleWith(w: Waiting, reply: ConvertReply | undefined): void {
  if (!reply) w.reject(new DossierError('conversion_failed', 'The conversion thread sent no reply for this file'));
  else if (!reply.ok) w.reject(new DossierError(reply.code, reply.message));
  else {
    const { ok: _ok, ...prepared } = reply;
    w.resolve(prepared);
  }
}
