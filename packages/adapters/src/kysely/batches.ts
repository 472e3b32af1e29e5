/** Rows per `in (...)` list: well under SQLite's and Postgres's bound-parameter limits. */
export const ID_BATCH = 500;

/** Longest a bulk write runs its statements before letting the event loop turn, in ms. */
const WRITE_SLICE_MS = 8;

/**
 * Write items in consecutive slices of at most `size`, one `write` each, letting the event loop turn whenever the
 * statements have run for WRITE_SLICE_MS. With SQLite every statement runs on the event loop, and a transaction's
 * awaits resolve as microtasks, so the 5,000 sections of a document of 200,000 headings, or the table chunks of a
 * CSV of a million lines, held it for a quarter to half a second at once (bench/ingest/responsiveness.ts). A small
 * document's rows are written without a pause.
 */
export async function writeInSlices<T>(items: T[], size: number, write: (slice: T[]) => Promise<unknown>): Promise<void> {
  let since = performance.now();
  for (const slice of batches(items, size)) {
    await write(slice);
    if (performance.now() - since < WRITE_SLICE_MS) continue;
    await new Promise((resolve) => setImmediate(resolve));
    since = performance.now();
  }
}

/** Split items into consecutive slices of at most `size`. */
export function batches<T>(items: T[], size = ID_BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
