import type { LanceTables, TableHandle } from './tables.ts';
import type { LanceRecord } from './sdk.ts';

interface Pending {
  records: LanceRecord[];
  /** True while every upsert in the batch was fresh (known-new ids): the commit may append. */
  fresh: boolean;
  waiters: { resolve: () => void; reject: (err: unknown) => void }[];
  /** Pending start of a paced commit, cleared when it starts early (the batch filled up). */
  timer: NodeJS.Timeout | null;
}

/** How group commits of one table are paced. */
export interface CommitPacing {
  /** Least time between the starts of two commits of one table; upserts arriving sooner join the next one. */
  minIntervalMs: number;
  /** A waiting batch of this many rows commits at once, whatever the interval. */
  maxRows: number;
}

/**
 * At most ten commits a second per table. A commit's cost hardly depends on its size (measured on a 2-core machine:
 * 4–8 ms of CPU for a 4-row add alone, 9 ms beside ingestion), so a bulk ingestion that committed whenever the last
 * commit ended spent 26 s of CPU on 3,000 commits of SciFact; paced, 545 commits and 5–7 s. A lone upsert on a quiet
 * table still commits at once.
 */
export const DEFAULT_COMMIT_PACING: CommitPacing = { minIntervalMs: 100, maxRows: 5000 };

/**
 * Group commit of upserts: while one commit to a table is in flight, or its last one started less than
 * `minIntervalMs` ago, upserts queue up, and the next commit writes them all in one merge. Every LanceDB commit costs
 * milliseconds of CPU whatever its size, so ingesting many small documents one commit each was bound by commit
 * count, not by data. Each caller's promise settles with the commit that carried its rows.
 */
export class GroupCommit {
  private readonly pending = new Map<string, Pending>();
  /** Per table, when its last commit started. */
  private readonly lastStart = new Map<string, number>();

  constructor(
    private readonly tables: LanceTables,
    private readonly commit: (h: TableHandle, records: LanceRecord[], fresh: boolean) => Promise<void>,
    private readonly pacing: CommitPacing = DEFAULT_COMMIT_PACING,
  ) {}

  /** Upsert records into the table, sharing a commit with any other upserts waiting for the same table. */
  upsert(h: TableHandle, records: LanceRecord[], fresh = false): Promise<void> {
    return new Promise((resolve, reject) => {
      let batch = this.pending.get(h.name);
      if (!batch) {
        batch = { records: [], fresh: true, waiters: [], timer: null };
        this.pending.set(h.name, batch);
        this.schedule(h, batch);
      }
      batch.records.push(...records);
      batch.fresh &&= fresh;
      batch.waiters.push({ resolve, reject });
      if (batch.timer && batch.records.length >= this.pacing.maxRows) this.start(h, batch);
    });
  }

  /** Starts the batch's commit once the table's last commit started at least minIntervalMs ago. */
  private schedule(h: TableHandle, batch: Pending): void {
    const wait = (this.lastStart.get(h.name) ?? Number.NEGATIVE_INFINITY) + this.pacing.minIntervalMs - performance.now();
    if (wait <= 0) this.start(h, batch);
    else batch.timer = setTimeout(() => this.start(h, batch), wait);
  }

  private start(h: TableHandle, b: Pending): void {
    if (b.timer) clearTimeout(b.timer);
    b.timer = null;
    this.tables
      .write(h, async () => {
        // Once this commit starts, later upserts open the next batch; until then they join this one.
        if (this.pending.get(h.name) === b) this.pending.delete(h.name);
        this.lastStart.set(h.name, performance.now());
        await this.commit(h, b.records, b.fresh);
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
}
