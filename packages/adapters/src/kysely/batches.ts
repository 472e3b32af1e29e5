/** Rows per `in (...)` list: well under SQLite's and Postgres's bound-parameter limits. */
export const ID_BATCH = 500;

/** Split items into consecutive slices of at most `size`. */
export function batches<T>(items: T[], size = ID_BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
