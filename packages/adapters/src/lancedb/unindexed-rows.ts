/** What is known of one table. */
interface TableCount {
  /** Rows the full-text index has not absorbed yet; undefined when a write left it unknown. */
  rows: number | undefined;
  /** Whether a commit is running, and what it appended (null: a commit that is not only an append). */
  running: { appended: number | null } | null;
  /** Bumped when a commit starts and when it ends, so a count read across a commit is not kept. */
  epoch: number;
}

/**
 * How many rows of each table its full-text index has not absorbed yet, as a search needs to know (see searchText in
 * chunk-index.ts), kept from this process's own commits instead of asking LanceDB before every search (indexStats:
 * 0.4–0.5 ms of a 6–7 ms search at 100k chunks). An append adds its rows (every row an add or a merge writes lands in
 * a new fragment, outside the index); any other commit (delete, update, index build, optimize) leaves the count
 * unknown, and the next search asks LanceDB once. While a commit runs, searches ask LanceDB and keep nothing.
 *
 * Only right when this process is the directory's one writer: with `shared` (other processes write it too) every
 * search asks LanceDB, as their commits are not seen here.
 */
export class UnindexedRows {
  private readonly tables = new Map<string, TableCount>();

  constructor(private readonly shared: boolean) {}

  /** The count for table `name`, from what this process saw or else from `ask` (LanceDB's index statistics). */
  async of(name: string, ask: () => Promise<number>): Promise<number> {
    const table = this.table(name);
    if (!this.shared && table.rows !== undefined && table.running === null) return table.rows;
    const epoch = table.epoch;
    const rows = await ask();
    if (!this.shared && table.epoch === epoch && table.running === null) table.rows = rows;
    return rows;
  }

  /** Runs one commit to table `name` (this process runs one at a time per table; see LanceTables.write). */
  async commit<T>(name: string, run: () => Promise<T>): Promise<T> {
    const table = this.table(name);
    const running = { appended: null as number | null };
    table.running = running;
    table.epoch++;
    let ok = false;
    try {
      const result = await run();
      ok = true;
      return result;
    } finally {
      table.rows = ok && running.appended !== null && table.rows !== undefined ? table.rows + running.appended : undefined;
      table.running = null;
      table.epoch++;
    }
  }

  /** Called inside commit(): the commit only appends `rows` rows. */
  appending(name: string, rows: number): void {
    const running = this.tables.get(name)?.running;
    if (running) running.appended = (running.appended ?? 0) + rows;
  }

  /** Forgets table `name` (dropped). */
  forget(name: string): void {
    this.tables.delete(name);
  }

  private table(name: string): TableCount {
    let table = this.tables.get(name);
    if (!table) {
      table = { rows: undefined, running: null, epoch: 0 };
      this.tables.set(name, table);
    }
    return table;
  }
}
