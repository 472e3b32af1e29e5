import type { TableHandle } from './tables.ts';

/** When to fold new rows into the indexes and compact fragments. */
export interface MaintenancePolicy {
  /** Optimize once writes have been quiet this long. */
  idleMs: number;
  /**
   * Optimize at once after this many write operations, even while writes go on, when the table has been searched
   * since its last optimize (or `readersElsewhere`): a table nobody searches during a bulk load waits for maxRows or
   * for the writes to go quiet, and its load pays one optimize instead of one per maxOps writes.
   */
  maxOps: number;
  /** Other processes search these tables (this one cannot see their reads): maxOps applies whether or not it searched. */
  readersElsewhere?: boolean;
  /** Optimize at once after this many rows were upserted, even while writes go on. */
  maxRows?: number;
  /**
   * How long a table version stays readable after a newer one replaced it (default 10 s): a reader in another
   * process (a worker ingesting while a server searches) may still be reading it, and a search lasts milliseconds.
   * Kept short because every read that checks for newer versions lists them all (measured: +1.1 ms a read with
   * 3,000 of them, as 60 s of a bulk load used to leave). Once writes have been quiet
   * this long after an optimize, a last run removes those versions and the files only they used, so the folder
   * settles at about the size of its live data.
   */
  retainMs?: number;
}

/** What one optimize did: the table's rows after it, and whether it rewrote fragments (a new version to expire). */
export interface OptimizeOutcome {
  rows: number;
  compacted: boolean;
}

/** Default retention of replaced table versions. */
export const RETAIN_MS = 10_000;

/**
 * Per-table background optimize. LanceDB searches rows written after the last index build with a flat scan
 * of the new fragments, so correctness never waits for optimize; but each optimize costs time that grows with
 * the table, so running it after every document made bulk ingestion quadratic (measured: 4 documents/s on
 * SciFact), and every 60 writes still cost a quarter of the throughput at 30k chunks (624 vs 815 chunks/s).
 * So while writes go on it runs only after many of them (or many rows); once writes go quiet it runs at once,
 * so search never scans a large unindexed tail for long.
 */
export class TableMaintenance {
  private readonly pending = new Map<string, { ops: number; rows: number; timer: NodeJS.Timeout | null; handle: TableHandle }>();
  /** Per table, the timer of the clean-up run due once the versions replaced by its last optimize expire. */
  private readonly settling = new Map<string, NodeJS.Timeout>();
  private readonly running = new Map<string, Promise<void>>();
  /** Rows of each table as of its last optimize: the tail allowed to stay unindexed grows with the table. */
  private readonly sizes = new Map<string, number>();
  /** Failed optimizes in a row per table (each one retried later, see retryLater). */
  private readonly failures = new Map<string, number>();
  private closed = false;
  /** Tables searched since their last optimize started (see MaintenancePolicy.maxOps). */
  private readonly searched = new Set<string>();
  /** The last optimize started, while one is going: the runs of different tables take turns (see inTurn). */
  private lastRun: Promise<unknown> | null = null;

  constructor(
    private readonly optimize: (h: TableHandle, retainMs: number) => Promise<OptimizeOutcome>,
    private readonly policy: MaintenancePolicy = DEFAULT_MAINTENANCE_POLICY,
  ) {}

  private get retainMs(): number {
    return this.policy.retainMs ?? RETAIN_MS;
  }

  /** Record a write of `rows` rows (0 for a delete or update) to the table; schedules (or runs) an optimize. */
  noteWrite(h: TableHandle, rows = 0): void {
    if (this.closed) return;
    const p = this.pending.get(h.name) ?? { ops: 0, rows: 0, timer: null, handle: h };
    p.ops++;
    p.rows += rows;
    if (p.timer) clearTimeout(p.timer);
    this.cancelSettle(h.name);
    this.pending.set(h.name, p);
    if (this.due(h.name)) this.runNow(h.name);
    else p.timer = setTimeout(() => this.runNow(h.name), this.policy.idleMs);
  }

  /**
   * Record a search of the table: once it has been searched, maxOps writes call for an optimize while writes go on
   * (at once, when that many are already waiting), so a search during a bulk load finds a short unindexed tail.
   */
  noteSearch(h: TableHandle): void {
    if (this.closed || this.searched.has(h.name)) return;
    this.searched.add(h.name);
    if (this.due(h.name)) this.runNow(h.name);
  }

  /**
   * Runs every optimize that writes so far call for now, instead of after the quiet period, and resolves once no
   * table has writes waiting for one (writes that arrive meanwhile are folded in too, a few rounds at most). Settle
   * runs (clean-up of replaced versions only) stay scheduled: they change no search.
   */
  async flush(): Promise<void> {
    for (let round = 0; round < MAX_FLUSH_ROUNDS; round++) {
      for (const name of [...this.pending.keys()]) this.runNow(name);
      if (this.running.size === 0 && this.pending.size === 0) return;
      await Promise.allSettled([...this.running.values()]);
    }
  }

  /**
   * Runs the optimizes still due (a process that closes right after its last write leaves a folded, compacted
   * index, not the fragments of that write), then stops scheduling. What a failing optimize leaves is taken over
   * by the next open of the directory (see scheduleLeftovers in chunk-index.ts).
   */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    for (const p of this.pending.values()) if (p.timer) clearTimeout(p.timer);
    for (const name of [...this.settling.keys()]) this.cancelSettle(name);
    this.pending.clear();
    await Promise.allSettled([...this.running.values()]);
  }

  /**
   * Whether writes since the last optimize warrant one while writes go on: many operations on a table being
   * searched, or new rows
   * past a quarter of the table (at least maxRows, at most MAX_TAIL_ROWS). Growing the threshold with the
   * table keeps the optimize work of a bulk load near linear; a fixed 20,000 rows made a 1M-row load crawl.
   */
  private due(name: string): boolean {
    const p = this.pending.get(name);
    if (!p) return false;
    const grown = Math.min((this.sizes.get(name) ?? 0) * GROWTH, MAX_TAIL_ROWS);
    const rowLimit = Math.max(this.policy.maxRows ?? Number.POSITIVE_INFINITY, grown);
    const searched = this.policy.readersElsewhere === true || this.searched.has(name);
    return (searched && p.ops >= this.policy.maxOps) || p.rows >= rowLimit;
  }

  private runNow(name: string): void {
    const p = this.pending.get(name);
    if (!p) return;
    if (p.timer) clearTimeout(p.timer);
    p.timer = null;
    if (this.running.has(name)) return; // one optimize per table at a time: these writes wait for it to finish
    this.pending.delete(name);
    this.start(p.handle, 0);
  }

  /**
   * Runs one optimize; afterwards, writes that came meanwhile are scheduled, or else a settle run: after a
   * write-driven run, and after a settle run that still compacted (LanceDB sometimes leaves two fragments that
   * the next optimize merges, which makes a version to expire in turn), at most MAX_SETTLE_RUNS in a row.
   */
  private start(h: TableHandle, settleRound: number): void {
    let compacted = false;
    let failed = false;
    this.searched.delete(h.name);
    const run = this.inTurn(() => this.optimize(h, this.retainMs)).then(
      (outcome) => {
        this.sizes.set(h.name, outcome.rows);
        compacted = outcome.compacted;
      },
      () => {
        // A failed optimize leaves the table correct (rows stay searchable unindexed); it is retried later.
        failed = true;
      },
    );
    this.running.set(h.name, run);
    void run.finally(() => {
      this.running.delete(h.name);
      if (this.closed) return;
      if (failed) return this.retryLater(h);
      this.failures.delete(h.name);
      const next = this.pending.get(h.name);
      if (!next) return void ((settleRound === 0 || (compacted && settleRound < MAX_SETTLE_RUNS)) && this.settleLater(h, settleRound + 1));
      if (this.due(h.name)) this.runNow(h.name);
      else if (!next.timer) next.timer = setTimeout(() => this.runNow(h.name), this.policy.idleMs);
    });
  }

  /**
   * Starts `optimize` at once when no other table's optimize is going, else after it. Each optimize (compaction and
   * full-text index update, in LanceDB's native threads) takes tens of MiB of native memory that glibc's allocator
   * mostly keeps afterwards; two at once (the chunk and section tables of a collection reach their thresholds together)
   * peaked 10 MiB higher than one after the other over SciFact's tables, for the same CPU time (issue 41).
   */
  private inTurn(optimize: () => Promise<OptimizeOutcome>): Promise<OptimizeOutcome> {
    const run = this.lastRun ? this.lastRun.then(optimize) : optimize();
    const settled = run.catch(() => {});
    this.lastRun = settled;
    void settled.then(() => {
      if (this.lastRun === settled) this.lastRun = null;
    });
    return run;
  }

  /**
   * After a failed optimize: another one later (twice the wait after each failure in a row, MAX_RETRIES at most),
   * so a table is not left unoptimized when writes have stopped. Writes meanwhile keep their own schedule.
   */
  private retryLater(h: TableHandle): void {
    const failures = (this.failures.get(h.name) ?? 0) + 1;
    this.failures.set(h.name, failures);
    if (failures > MAX_RETRIES) return void this.failures.delete(h.name);
    const p = this.pending.get(h.name) ?? { ops: 0, rows: 0, timer: null, handle: h };
    this.pending.set(h.name, p);
    p.timer ??= setTimeout(() => this.runNow(h.name), this.policy.idleMs * 2 ** failures);
  }

  /**
   * After the last optimize of a burst of writes: one more run once the versions it replaced have expired, which
   * (with nothing left to fold or compact) only removes them. A write before then cancels it; its own optimize
   * schedules the next.
   */
  private settleLater(h: TableHandle, round: number): void {
    this.cancelSettle(h.name);
    const timer = setTimeout(() => {
      this.settling.delete(h.name);
      if (!this.closed && !this.pending.has(h.name) && !this.running.has(h.name)) this.start(h, round);
    }, this.retainMs + SETTLE_SLACK_MS);
    timer.unref();
    this.settling.set(h.name, timer);
  }

  private cancelSettle(name: string): void {
    const timer = this.settling.get(name);
    if (timer) clearTimeout(timer);
    this.settling.delete(name);
  }
}

/** The policy of an index that is given none. */
export const DEFAULT_MAINTENANCE_POLICY: MaintenancePolicy = { idleMs: 1500, maxOps: 1000, maxRows: 20_000, retainMs: RETAIN_MS };

/** Rounds of one flush at most (each waits for the runs going, then starts those that writes meanwhile call for). */
const MAX_FLUSH_ROUNDS = 5;

/** Retries of a failing optimize in a row (after 2, 4, 8, 16 and 32 quiet periods); the next write starts again. */
const MAX_RETRIES = 5;

/** Settle runs in a row at most (each one that still compacted schedules the next). */
const MAX_SETTLE_RUNS = 3;

/** Margin past the retention, so the versions replaced by the last optimize are strictly older than the cut-off. */
const SETTLE_SLACK_MS = 1000;

/** New rows, as a share of the table, that trigger an optimize while writes go on. */
const GROWTH = 0.25;
/**
 * At most this many rows stay unindexed while writes go on: a text search reads every unindexed match (see
 * searchText), so the tail bounds the cost of queries made during a bulk load.
 */
const MAX_TAIL_ROWS = 50_000;
