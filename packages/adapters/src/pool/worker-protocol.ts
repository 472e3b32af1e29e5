/**
 * What a pool thread and its pool share: the warm-up document and the shape of a reply. A module of its own, with no
 * imports, so that a worker thread loads only what it runs (task-pool.ts would bring core's error classes with it).
 */

/** The document a pool thread converts or chunks as it starts, so that its parsers and tokenizer are set up then. */
export const WARM_UP_MARKDOWN = '# Warm-up\n\nA few words to tokenize.\n';

/** A task's outcome as plain data (errors lose their fields across threads). */
export type TaskReply<T> = ({ ok: true } & T) | { ok: false; code: 'unsupported_format' | 'conversion_failed' | 'not_found'; message: string };
