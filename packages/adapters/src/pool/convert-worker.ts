import { isDossierError, type PreparedDocument, type PrepareInput, prepareDocument } from '@dossier/core';
import { createConverterRegistry } from '../converters/index.ts';
import type { TaskReply } from './task-pool.ts';

/** What the worker sends back: the prepared document, or the error as plain data (errors lose fields across threads). */
export type ConvertReply = TaskReply<PreparedDocument>;

const registry = createConverterRegistry();

/** Convert and section one document inside a worker thread. */
export default async function convert(input: PrepareInput): Promise<ConvertReply> {
  try {
    return { ok: true, ...(await prepareDocument(registry, input)) };
  } catch (err) {
    if (isDossierError(err, 'unsupported_format')) return { ok: false, code: 'unsupported_format', message: err.message };
    if (isDossierError(err, 'conversion_failed')) return { ok: false, code: 'conversion_failed', message: err.message };
    return { ok: false, code: 'conversion_failed', message: `The file could not be converted (${(err as Error)?.name ?? 'error'}: ${String((err as Error)?.message ?? err).slice(0, 200)})` };
  }
}
