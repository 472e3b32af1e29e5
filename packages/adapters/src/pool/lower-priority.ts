import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Niceness of the threads that do CPU-heavy work in the background (conversion, chunking, embedding): the event
 * loop's thread keeps 0, so on a machine whose cores are all busy ingesting, the kernel runs the thread that answers
 * requests first, and the pool threads take every cycle it leaves (issue 11).
 */
export const BACKGROUND_THREAD_NICENESS = 10;

/**
 * Lower the calling thread's scheduling priority to BACKGROUND_THREAD_NICENESS. Linux only: there, a thread has its
 * own niceness, set through its thread id (read from /proc/thread-self). Elsewhere, or where it is not permitted, the
 * thread keeps its priority.
 */
export function lowerThisThreadsPriority(): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    if (!Number.isInteger(threadId) || threadId === process.pid) return false;
    setPriority(threadId, BACKGROUND_THREAD_NICENESS);
    return true;
  } catch {
    return false;
  }
}
