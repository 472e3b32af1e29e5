import { DossierError, isDossierError } from '@dossier/core';
import { dimensionOf, TEXT } from './schema.ts';
import { type ArrowSchemaLike, type FtsOptions, type LanceConnection, type LanceTable, loadSdk, type Sdk } from './sdk.ts';

/** An open table with what the adapter needs to know about it. */
export interface TableHandle {
  name: string;
  table: LanceTable;
  schema: ArrowSchemaLike;
  /** Vector width, or null when the table has no vector column. */
  dimension: number | null;
}

/**
 * English BM25: split on whitespace and punctuation, lowercase, fold accents (café = cafe), stem
 * (running = run) and drop stop words. Positions are not stored: queries are bags of words, never phrases,
 * and the index is smaller without them.
 */
export const FTS_OPTIONS: FtsOptions = {
  baseTokenizer: 'simple',
  language: 'English',
  lowercase: true,
  stem: true,
  removeStopWords: true,
  asciiFolding: true,
  maxTokenLength: 40,
  withPosition: false,
};

/** One LanceDB connection to a directory and a cache of its open tables. */
export class LanceTables {
  private conn: Promise<LanceConnection> | undefined;
  private readonly handles = new Map<string, Promise<TableHandle>>();
  /** Per table, the tail of its queue of writes. */
  private readonly writes = new Map<string, Promise<unknown>>();
  /** Open tables known to have their full-text index (a dropped table's handle is never reused). */
  private readonly withFts = new WeakSet<TableHandle>();

  constructor(
    private readonly dir: string,
    private readonly readConsistencySeconds: number,
  ) {}

  sdk(): Promise<Sdk> {
    return loadSdk();
  }

  /** The open table `name`; throws missing_index when it does not exist. */
  open(name: string): Promise<TableHandle> {
    const cached = this.handles.get(name);
    if (cached) return cached;
    const handle = this.openUncached(name);
    this.handles.set(name, handle);
    // A failed open is not cached, so a table created later (by another process) is found.
    handle.catch(() => this.handles.get(name) === handle && this.handles.delete(name));
    return handle;
  }

  /** Opens `name`, or creates it with `schema` when it does not exist; an existing table keeps its schema. */
  async openOrCreate(name: string, schema: unknown): Promise<TableHandle> {
    try {
      return await this.open(name);
    } catch (err) {
      if (!isDossierError(err, 'missing_index')) throw err;
    }
    const conn = await this.connection();
    // existOk covers a concurrent creator; LanceDB refuses it when the schemas differ.
    const table = await conn.createEmptyTable(name, schema, { mode: 'create', existOk: true });
    const handle = describe(name, table);
    this.handles.set(name, handle);
    return handle;
  }

  /** Drops `name` if it exists. */
  drop(name: string): Promise<void> {
    return this.serial(name, async () => {
      const cached = this.handles.get(name);
      this.handles.delete(name);
      if (cached) await cached.then((h) => h.table.close()).catch(() => {});
      const conn = await this.connection();
      if ((await conn.tableNames()).includes(name)) await conn.dropTable(name);
    });
  }

  /**
   * Runs a commit (write, index build, optimize) on a table after the earlier ones have settled.
   * Measured: with 20 concurrent ingest flows on one table, optimize() and createIndex failed with
   * "Retryable commit conflict" against concurrent writes; serialising commits per table removes
   * that in-process. A conflict with another process still surfaces, as a retryable `conflict`.
   */
  write<T>(h: TableHandle, fn: (table: LanceTable) => Promise<T>): Promise<T> {
    return this.serial(h.name, () => fn(h.table)).catch((err: unknown) => {
      if (!String((err as Error | undefined)?.message).includes('Retryable commit conflict')) throw err;
      throw new DossierError('conflict', `concurrent write to ${h.name}; retry`, { cause: err, retryable: true });
    });
  }

  /** Creates the full-text index on `text` when the table has none yet (checked once per open table). */
  async ensureFts(h: TableHandle): Promise<void> {
    if (this.withFts.has(h)) return;
    await this.write(h, async (table) => {
      if (await ftsIndexOf(table)) return void this.withFts.add(h);
      const { lancedb } = await this.sdk();
      await table.createIndex(TEXT, { config: lancedb.Index.fts(FTS_OPTIONS) });
      this.withFts.add(h);
    });
  }

  async close(): Promise<void> {
    const handles = [...this.handles.values()];
    this.handles.clear();
    for (const h of await Promise.allSettled(handles)) if (h.status === 'fulfilled') h.value.table.close();
    const conn = this.conn;
    this.conn = undefined;
    if (conn) (await conn).close();
  }

  private serial<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.writes.get(name) ?? Promise.resolve()).then(fn);
    const tail = run.catch(() => {});
    this.writes.set(name, tail);
    void tail.then(() => this.writes.get(name) === tail && this.writes.delete(name));
    return run;
  }

  private connection(): Promise<LanceConnection> {
    this.conn ??= this.sdk().then(({ lancedb }) =>
      lancedb.connect(this.dir, { readConsistencyInterval: this.readConsistencySeconds }),
    );
    return this.conn;
  }

  private async openUncached(name: string): Promise<TableHandle> {
    const conn = await this.connection();
    try {
      return await describe(name, await conn.openTable(name));
    } catch (err) {
      // LanceDB reports a missing table only as a message; the name list is the reliable test.
      if ((await conn.tableNames()).includes(name)) throw err;
      throw new DossierError('missing_index', `the chunk index has no table ${name}; create the collection first`, { cause: err });
    }
  }
}

/** The FTS index on `text`, if any. */
export async function ftsIndexOf(table: LanceTable) {
  return (await table.listIndices()).find((i) => i.indexType === 'FTS' && i.columns.includes(TEXT));
}

async function describe(name: string, table: LanceTable): Promise<TableHandle> {
  const schema = await table.schema();
  return { name, table, schema, dimension: dimensionOf(schema) };
}
