import { DossierError, isDossierError } from '@dossier/core';
import { dimensionOf, TEXT, VECTOR } from './schema.ts';
import { type ArrowSchemaLike, type FtsOptions, type LanceConnection, type LanceSession, type LanceTable, loadSdk, type Sdk } from './sdk.ts';
import { UnindexedRows } from './unindexed-rows.ts';

const CANONICAL = 'canonical';
/** LanceDB's name for the full-text index on `text`. */
const FTS_INDEX = `${TEXT}_idx`;
/** Rows from which a vector column gets an ANN index (LanceDB: brute force is fine up to about 100k rows). */
export const VECTOR_INDEX_MIN_ROWS = 100_000;

/** LanceDB's IVF_PQ guidance: about sqrt(rows) partitions, and sub-vectors of 8 or 16 dimensions. */
function ivfPqOptions(rows: number, dimension: number) {
  const numSubVectors = dimension % 16 === 0 ? dimension / 16 : dimension % 8 === 0 ? dimension / 8 : 1;
  return { distanceType: 'cosine' as const, numPartitions: Math.max(1, Math.round(Math.sqrt(rows))), numSubVectors };
}

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

/** Commits through one connection after which later opens use a new one (see LanceTables.renewConnection). */
const RENEW_AFTER_COMMITS = 500;

/** Bytes of the LanceDB caches of one connection (see LanceChunkIndexOptions.cacheBytes). */
export interface LanceCacheBytes {
  /** Index pages (full-text posting lists, vector partitions, bitmaps) kept in memory. */
  index: number;
  /** File and manifest metadata kept in memory. */
  metadata: number;
}

/**
 * LanceDB's own defaults are 6 GiB of index cache and 1 GiB of metadata cache per process, sized for a
 * dedicated search server. Here the service shares one machine with SQLite, the worker pool and its callers;
 * measured on SciFact through the pipeline, the metadata cache of table versions written during a bulk load
 * was most of a 1.7 GB resident set. Both are LRU caches: a smaller one costs a re-read, never a wrong answer.
 */
export const DEFAULT_CACHE_BYTES: LanceCacheBytes = { index: 256 * 2 ** 20, metadata: 64 * 2 ** 20 };

/** One LanceDB connection to a directory and a cache of its open tables. */
export class LanceTables {
  private conn: Promise<LanceConnection> | undefined;
  /** The caches of the current connection (see DEFAULT_CACHE_BYTES). */
  private session: Promise<LanceSession> | undefined;
  private readonly handles = new Map<string, Promise<TableHandle>>();
  /** Per table, the tail of its queue of writes. */
  private readonly writes = new Map<string, Promise<unknown>>();
  /** Open tables known to have their full-text and filter indexes (a dropped table's handle is never reused). */
  private readonly withIndexes = new WeakSet<TableHandle>();
  /** Open tables known to have their vector index. */
  private readonly withVectorIndex = new WeakSet<TableHandle>();
  /** Commits made through the current connection (see RENEW_AFTER_COMMITS). */
  private commits = 0;
  /** Rows each table's full-text index has not absorbed yet (see UnindexedRows). */
  private readonly unindexed: UnindexedRows;

  /** `shared`: other processes write this directory too. */
  constructor(
    private readonly dir: string,
    private readonly readConsistencySeconds: number,
    shared: boolean,
    private readonly vectorIndexMinRows: number = VECTOR_INDEX_MIN_ROWS,
    private readonly cacheBytes: LanceCacheBytes = DEFAULT_CACHE_BYTES,
  ) {
    this.unindexed = new UnindexedRows(shared);
  }

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

  /** Names of the tables in the directory. */
  async names(): Promise<string[]> {
    return (await this.connection()).tableNames();
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
      this.unindexed.forget(name);
      if (cached) await cached.then((h) => h.table.close()).catch(() => {});
      const conn = await this.connection();
      if ((await conn.tableNames()).includes(name)) await conn.dropTable(name);
    });
  }

  /**
   * Runs a commit (write, index build, optimize) on a table after the earlier ones have settled.
   * Measured: with 20 concurrent ingest flows on one table, optimize() and createIndex failed with
   * "Retryable commit conflict" against concurrent writes; serialising commits per table removes
   * that in-process. Other processes sharing the directory (several workers, an API node deleting a
   * document) still race: LanceDB commits each version atomically and rebases compatible commits itself
   * (appends, deletes of other fragments), and reports the rest as a commit conflict, which leaves the table
   * as it was. Every write here is idempotent (upserts by id, deletes and updates by predicate), so a
   * conflict is retried on the new version a few times with backoff, then surfaces as a retryable `conflict`.
   */
  async write<T>(h: TableHandle, fn: (table: LanceTable) => Promise<T>): Promise<T> {
    if (++this.commits >= RENEW_AFTER_COMMITS) this.renewConnection();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.serial(h.name, () => this.unindexed.commit(h.name, () => fn(h.table)));
      } catch (err) {
        if (!isCommitConflict(err)) throw err;
        if (attempt >= COMMIT_ATTEMPTS) throw new DossierError('conflict', `concurrent write to ${h.name}; retry`, { cause: err, retryable: true });
        await new Promise((resolve) => setTimeout(resolve, (25 << attempt) * (0.5 + Math.random())));
      }
    }
  }

  /** Rows of the table its full-text index has not absorbed yet (searched by a flat scan). */
  unindexedRows(h: TableHandle): Promise<number> {
    return this.unindexed.of(h.name, async () => (await h.table.indexStats(FTS_INDEX))?.numUnindexedRows ?? 0);
  }

  /** Called by a commit running in write() that only appends `rows` new rows (an add, or a merge by id). */
  appending(h: TableHandle, rows: number): void {
    this.unindexed.appending(h.name, rows);
  }

  /** Creates the full-text index on `text` and the `canonical` filter index when missing (checked once per open table). */
  async ensureIndexes(h: TableHandle): Promise<void> {
    if (this.withIndexes.has(h)) return;
    await this.write(h, async (table) => {
      const indices = await table.listIndices();
      const { lancedb } = await this.sdk();
      if (!indices.some((i) => i.indexType === 'FTS' && i.columns.includes(TEXT))) {
        await table.createIndex(TEXT, { config: lancedb.Index.fts(FTS_OPTIONS) });
      }
      // Every search prefilters on `canonical`; without an index that predicate scans the whole column
      // (measured at 100k chunks: FTS p50 3 ms bare, 8 ms with the prefilter, 4 ms with this bitmap index).
      if (h.schema.fields.some((f) => f.name === CANONICAL) && !indices.some((i) => i.columns.includes(CANONICAL))) {
        await table.createIndex(CANONICAL, { config: lancedb.Index.bitmap() });
      }
      this.withIndexes.add(h);
    });
  }

  /**
   * Builds an IVF_PQ index on `vector` once the table is large enough to need one. Below that, LanceDB's own
   * guidance is that a flat scan is exact and fast enough; above it, a flat scan grows linearly with the rows.
   * Runs in the table's write slot (LanceDB rejects an index commit that races a write), so writes to this
   * table wait for the build once; later rows are folded in by optimize().
   */
  async ensureVectorIndex(h: TableHandle): Promise<void> {
    if (h.dimension === null || this.withVectorIndex.has(h)) return;
    await this.write(h, async (table) => {
      if ((await table.listIndices()).some((i) => i.columns.includes(VECTOR))) return void this.withVectorIndex.add(h);
      const rows = await table.countRows();
      if (rows < this.vectorIndexMinRows) return;
      const { lancedb } = await this.sdk();
      await table.createIndex(VECTOR, { config: lancedb.Index.ivfPq(ivfPqOptions(rows, h.dimension!)) });
      this.withVectorIndex.add(h);
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

  /**
   * Later opens use a new connection. Measured on LanceDB 0.37: a connection's resident memory grew by about
   * 65 KB with every commit made through it (3,000 commits: +150 MB), and was given back only when the connection
   * was released. (That was measured while connect() still ignored the session, so the caches had LanceDB's default
   * sizes: a session's caches grow by about 100 KB a commit of SciFact until their cap.) Handles already taken keep working on the old connection,
   * which is not closed (an upsert waiting for its group commit still holds its handle): it is freed once the
   * last handle on it is garbage.
   */
  private renewConnection(): void {
    this.commits = 0;
    this.conn = undefined;
    this.handles.clear();
  }

  private serial<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.writes.get(name) ?? Promise.resolve()).then(fn);
    const tail = run.catch(() => {});
    this.writes.set(name, tail);
    void tail.then(() => this.writes.get(name) === tail && this.writes.delete(name));
    return run;
  }

  /** Bytes LanceDB's caches hold now for the current connection (0 before the first one). */
  async cacheBytesInUse(): Promise<number> {
    return this.session ? Number((await this.session).sizeBytes()) : 0;
  }

  private connection(): Promise<LanceConnection> {
    if (this.conn) return this.conn;
    const session = this.sdk().then(({ lancedb }) => new lancedb.Session(BigInt(this.cacheBytes.index), BigInt(this.cacheBytes.metadata)));
    this.session = session;
    this.conn = session.then(async (s) => (await this.sdk()).lancedb.connect(this.dir, { readConsistencyInterval: this.readConsistencySeconds, session: s }));
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

/** Attempts of one commit that meets concurrent commits of other processes (backoff 50 ms, 100 ms, … with jitter). */
const COMMIT_ATTEMPTS = 6;

/** LanceDB reports conflicts only in messages: "Retryable commit conflict", "Commit conflict for version …". */
const isCommitConflict = (err: unknown): boolean =>
  /commit conflict|concurrent commit|too many concurrent writers/i.test(String((err as Error | undefined)?.message));

async function describe(name: string, table: LanceTable): Promise<TableHandle> {
  const schema = await table.schema();
  return { name, table, schema, dimension: dimensionOf(schema) };
}
