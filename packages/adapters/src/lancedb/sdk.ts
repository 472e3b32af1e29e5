/**
 * The slice of `@lancedb/lancedb` and `apache-arrow` this adapter uses, typed by hand and loaded lazily so
 * that importing the adapters package (or core) never loads the native LanceDB binding.
 */
import { createRequire } from 'node:module';
import type * as Arrow from 'apache-arrow';

/** An Arrow schema as LanceDB returns it; only the fields are read. */
export interface ArrowSchemaLike {
  readonly fields: readonly { readonly name: string; readonly type: unknown }[];
}

/** A row as `recordsOf` reads it from a result table: Arrow list cells are iterable vectors, not JS arrays. */
export type LanceRecord = Record<string, unknown>;

/** A query result as `toArrow()` returns it: columns read by name, a value at a time. */
export interface ArrowTableLike {
  readonly schema: ArrowSchemaLike;
  readonly numRows: number;
  getChild(name: string): { get(index: number): unknown } | null;
}

export interface LanceQuery {
  where(predicate: string): LanceQuery;
  limit(limit: number): LanceQuery;
  select(columns: string[]): LanceQuery;
  fullTextSearch(query: string, options?: { columns?: string | string[] }): LanceQuery;
  nearestTo(vector: Float32Array): LanceVectorQuery;
  toArrow(): Promise<ArrowTableLike>;
}

export interface LanceVectorQuery {
  distanceType(type: 'l2' | 'cosine' | 'dot'): LanceVectorQuery;
  nprobes(n: number): LanceVectorQuery;
  refineFactor(n: number): LanceVectorQuery;
  where(predicate: string): LanceVectorQuery;
  limit(limit: number): LanceVectorQuery;
  select(columns: string[]): LanceVectorQuery;
  toArrow(): Promise<ArrowTableLike>;
}

export interface LanceMergeInsert {
  whenMatchedUpdateAll(): LanceMergeInsert;
  whenNotMatchedInsertAll(): LanceMergeInsert;
  execute(data: unknown): Promise<unknown>;
}

export interface LanceIndexConfig {
  name: string;
  indexType: string;
  columns: string[];
  numUnindexedRows?: number;
}

export interface LanceTable {
  schema(): Promise<ArrowSchemaLike>;
  mergeInsert(on: string): LanceMergeInsert;
  add(data: unknown): Promise<unknown>;
  delete(predicate: string): Promise<unknown>;
  update(opts: { where: string; valuesSql: Record<string, string> }): Promise<unknown>;
  countRows(filter?: string): Promise<number>;
  query(): LanceQuery;
  listIndices(): Promise<LanceIndexConfig[]>;
  indexStats(name: string): Promise<{ numIndexedRows: number; numUnindexedRows: number } | undefined>;
  createIndex(column: string, options: { config: unknown; replace?: boolean }): Promise<void>;
  optimize(options?: { cleanupOlderThan?: Date }): Promise<{ compaction: { fragmentsRemoved: number } }>;
  /** Sizes read from the table's manifest (no file listing); small fragments are those compaction would merge. */
  stats(): Promise<{ totalBytes: number; numRows: number; fragmentStats: { numFragments: number; numSmallFragments: number } }>;
  close(): void;
}

export interface LanceConnection {
  tableNames(): Promise<string[]>;
  openTable(name: string): Promise<LanceTable>;
  createEmptyTable(name: string, schema: unknown, options: { mode: 'create'; existOk: boolean }): Promise<LanceTable>;
  dropTable(name: string): Promise<void>;
  close(): void;
}

/** Options of `Index.fts` used here (see FtsOptions in lancedb's indices.d.ts). */
export interface FtsOptions {
  baseTokenizer: 'simple';
  language: string;
  lowercase: boolean;
  stem: boolean;
  removeStopWords: boolean;
  asciiFolding: boolean;
  maxTokenLength: number;
  withPosition: boolean;
}

/** A LanceDB session: the index and metadata caches its connections share. */
export interface LanceSession {
  /** Bytes the session's caches hold now. */
  sizeBytes(): bigint;
}

export interface LanceModule {
  /**
   * The session goes in the options: LanceDB 0.37's `connect(uri, options, session)` drops a third argument that is not
   * a header provider, and the connection then gets a default session (6 GiB index cache, 1 GiB metadata cache).
   */
  connect(uri: string, options?: { readConsistencyInterval?: number; session?: LanceSession }): Promise<LanceConnection>;
  Session: new (indexCacheSizeBytes?: bigint, metadataCacheSizeBytes?: bigint) => LanceSession;
  Index: {
    fts(options: FtsOptions): unknown;
    bitmap(): unknown;
    ivfPq(options: { distanceType: 'cosine'; numPartitions: number; numSubVectors: number }): unknown;
  };
}

/** Apache Arrow, typed by its own declarations (a type-only import: nothing is loaded until loadSdk runs). */
export type ArrowModule = typeof Arrow;

export interface Sdk {
  lancedb: LanceModule;
  arrow: ArrowModule;
}

let loaded: Promise<Sdk> | undefined;

/** Imports LanceDB and Arrow once, on first use. */
export function loadSdk(): Promise<Sdk> {
  loaded ??= import('@lancedb/lancedb').then((lancedb) => ({
    // The real classes have wider, overloaded signatures; these casts narrow them to the slice above.
    lancedb: lancedb as unknown as LanceModule,
    arrow: lanceArrow(),
  }));
  return loaded;
}

/**
 * Arrow as LanceDB itself loads it (`require`, from LanceDB's own folder). An `import` loads Arrow's ESM build, a
 * second copy of every class: LanceDB does not recognise the types of tables built with it ("Unrecognized type").
 */
function lanceArrow(): ArrowModule {
  const fromHere = createRequire(import.meta.url);
  return createRequire(fromHere.resolve('@lancedb/lancedb'))('apache-arrow') as ArrowModule;
}
