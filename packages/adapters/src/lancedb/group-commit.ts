import type { LanceTables, TableHandle } from './tables.ts';
import type { LanceRecord } from './sdk.ts';

/** A commit that ended this recently (ms) marks its table as busy: the next batch lingers for company. */
const BUSY_WINDOW_MS = 100;
/** How long a busy table's next commit waits for more upserts (ms). */
const DEFAULT_LINGER_MS = 20;

interface Pending {
  records: LanceRecord[];
  /** True while every upsert in the batch was fresh (known-new ids): the commit may append. */
  fresh: boolean;
  waiters: { resolve: () => void; reject: (err: unknown) => void }[];
}

/**
 * Group commit of upserts: while one commit to a table is in flight, upserts queue up, and the next commit
 * writes them all in one merge. Every LanceDB commit costs tens of milliseconds whatever its size (measured:
 * 40–60 ms per document on SciFact), so ingesting many small documents one commit each was bound by commit
 * count, not by data. Each caller's promise settles with the commit that carried its rows.
 */
export class GroupCommit {
  private readonly pending = new Map<string, Pending>();
  /** When each table's last commit ended (ms since the epoch). */
  private readonly lastCommitEnd = new Map<string, number>();

  /**
   * `lingerMs`: while a table is busy (its last commit ended less than BUSY_WINDOW_MS ago, as in a bulk ingestion),
   * a new batch waits this long for more upserts before its commit starts; a lone upsert on a quiet table commits at
   * once. Each commit has a fixed cost (a new version, a manifest, a schema round trip), so fewer, larger commits
   * leave more CPU for the documents.
   */
  constructor(
    private readonly tables: LanceTables,
    private readonly commit: (h: TableHandle, records: LanceRecord[], fresh: boolean) => Promise<void>,
    private readonly lingerMs = DEFAULT_LINGER_MS,
  ) {}

  /** Whether a commit to this table ended so recently that more upserts are likely on their way. */
  private busy(table: string): boolean {
    return Date.now() - (this.lastCommitEnd.get(table) ?? 0) < BUSY_WINDOW_MS;
  }

  /** Upsert records into the table, sharing a commit with any other upserts waiting for the same table. */
  upsert(h: TableHandle, records: LanceRecord[], fresh = false): Promise<void> {
    return new Promise((resolve, reject) => {
      let batch = this.pending.get(h.name);
      if (!batch) {
        const b: Pending = { records: [], fresh: true, waiters: [] };
        batch = b;
        this.pending.set(h.name, b);
        // Once this commit starts, later upserts open the next batch; until then they join this one. The write slot
        // is taken now, so a delete issued after this upsert still runs after it; the linger happens inside the slot.
        this.tables
          .write(h, async () => {
            if (this.lingerMs > 0 && this.busy(h.name)) await new Promise((wake) => setTimeout(wake, this.lingerMs));
            if (this.pending.get(h.name) === b) this.pending.delete(h.name);
            try {
              await this.commit(h, b.records, b.fresh);
            } finally {
              this.lastCommitEnd.set(h.name, Date.now());
            }
          })
          .then(
            () => {
              for (const w of b.waiters) w.resolve();
            },
            (err: unknown) => {
              for (const w of b.waiters) w.reject(err);
            },
          );
      }
      batch.records.push(...records);
      batch.fresh &&= fresh;
      batch.waiters.push({ resolve, reject });
    });
  }
}
