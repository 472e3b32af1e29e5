import { DossierError, invalid } from '@dossier/core';
import type * as Arrow from 'apache-arrow';
import type { ChunkHitRow, ChunkIndex, ChunkRow, DocumentAttributes, IndexHit, IndexSearchOptions } from '@dossier/core';
import {
  CHUNK_COLUMNS,
  columnsOf,
  chunkSchema,
  fromChunkRecord,
  fromHitRecord,
  fromPassageRecord,
  HIT_COLUMNS,
  fromSectionRecord,
  recordsOf,
  SECTION_COLUMNS,
  sectionSchema,
  TEXT,
  toChunkRecord,
  toSectionRecord,
} from './schema.ts';
import { recordsToArrowTable } from './columnar.ts';
import { type CommitPacing, DEFAULT_COMMIT_PACING, GroupCommit } from './group-commit.ts';
import { DEFAULT_MAINTENANCE_POLICY, type MaintenancePolicy, type OptimizeOutcome, RETAIN_MS, TableMaintenance } from './maintenance.ts';
import type { LanceRecord, LanceTable } from './sdk.ts';
import { inList, listValue, literal, searchWhere } from './sql.ts';
import { type LanceCacheBytes, LanceTables, type TableHandle } from './tables.ts';

/** Documents whose attributes one update statement changes. */
const ATTRIBUTE_BATCH = 500;

export interface LanceChunkIndexOptions {
  /** Directory of the LanceDB database (one `<table>.lance` folder per table). */
  dir: string;
  /**
   * Seconds between checks of a cached table for writes made by other processes (a worker process
   * ingesting while a server process searches). Default 0: check on every read, so a document that is
   * `ready` is fully visible everywhere; measured on a local disk over 20k rows, no difference in search
   * latency beyond noise. LanceDB's own default (never check) leaves other processes' handles stale.
   */
  readConsistencySeconds?: number;
  /**
   * Whether other processes write this directory too (scale-out nodes sharing one index directory). Default false:
   * this process is its one writer, and a search takes the count of rows the full-text index has not absorbed yet
   * from this process's own commits; shared, it asks LanceDB before every search (see UnindexedRows).
   */
  sharedWithOtherProcesses?: boolean;
  /**
   * When background optimize runs (default: after 1.5 s without writes, every 1,000 writes while the table is searched,
   * or past 20,000 new rows).
   */
  maintenance?: MaintenancePolicy;
  /**
   * Whether this process optimizes tables in the background (default true). Nodes that share one index
   * leave it to the nodes that write rows (workers); an API node's occasional deletes are folded in by
   * the next optimize a worker runs.
   */
  optimizeInBackground?: boolean;
  /** Rows from which background optimize gives a chunk table's vectors an IVF_PQ index (default 100,000). */
  vectorIndexMinRows?: number;
  /** Memory of LanceDB's index and metadata caches (default 256 MiB and 64 MiB; see DEFAULT_CACHE_BYTES). */
  cacheBytes?: LanceCacheBytes;
  /** How often a table commits while upserts keep coming (default: at most every 100 ms, at once past 5,000 rows). */
  commitPacing?: Partial<CommitPacing>;
}

/**
 * ChunkIndex on embedded LanceDB: per collection a chunk table (vectors + BM25 text) and a section table
 * (BM25 over title and summary). Filters are SQL prefilters inside the scan; scores are higher-is-better.
 */
export interface LanceChunkIndex extends ChunkIndex {
  /**
   * Fold every row into the collection's indexes now (full-text, filter and, past the row threshold, vector
   * index), compact and clean up, instead of waiting for background maintenance: for bulk loaders and
   * benchmarks that want the settled state at once.
   */
  optimize(collectionId: string): Promise<void>;
  /**
   * Resolves once the background maintenance that writes so far call for has run (at once, not after the quiet
   * period), and the check of the tables found at open is done: the index is then folded and compacted.
   */
  settle(): Promise<void>;
}

export function createLanceChunkIndex(opts: LanceChunkIndexOptions): LanceChunkIndex {
  const tables = new LanceTables(opts.dir, opts.readConsistencySeconds ?? 0, opts.sharedWithOtherProcesses ?? false, opts.vectorIndexMinRows, opts.cacheBytes);
  const policy = { readersElsewhere: opts.sharedWithOtherProcesses ?? false, ...(opts.maintenance ?? DEFAULT_MAINTENANCE_POLICY) };
  const maintenance = opts.optimizeInBackground === false ? null : new TableMaintenance((h, retainMs) => optimizeTable(tables, h, retainMs), policy);
  /** A table about to be searched (its maintenance learns someone reads it). */
  const searched = (h: TableHandle): TableHandle => {
    maintenance?.noteSearch(h);
    return h;
  };
  // A directory a process left with writes not yet optimized (it closed without settling, or was killed) gets them now.
  const leftovers = maintenance ? scheduleLeftovers(tables, maintenance).catch(() => {}) : Promise.resolve();
  const pacing = { ...DEFAULT_COMMIT_PACING, ...opts.commitPacing };
  const groups = new GroupCommit(tables, (h, records, fresh) => writeRecords(tables, h, records, fresh), pacing);
  const upsert = async (h: TableHandle, records: LanceRecord[], fresh?: boolean) => {
    await groups.upsert(h, records, fresh);
    maintenance?.noteWrite(h, records.length);
  };
  /** Runs a data write, then lets maintenance know the table changed. */
  const write = async (h: TableHandle, fn: (t: LanceTable) => Promise<unknown>) => {
    await tables.write(h, fn);
    maintenance?.noteWrite(h);
  };
  const chunks = (collectionId: string) => tables.open(chunkTable(collectionId));
  const sections = (collectionId: string) => tables.open(sectionTable(collectionId));
  const both = async (collectionId: string) => [await chunks(collectionId), await sections(collectionId)];

  return {
    capabilities: { fullText: true, vector: true, filters: true },
    createCollection: (collectionId, dimension) => createCollection(tables, collectionId, dimension),
    async dropCollection(collectionId) {
      await tables.drop(chunkTable(collectionId));
      await tables.drop(sectionTable(collectionId));
    },
    async upsertChunks(collectionId, rows, o) {
      if (rows.length === 0) return;
      const h = await chunks(collectionId);
      for (const row of rows) checkVector(collectionId, h.dimension, row.vector);
      const columns = columnsOf(h.schema, CHUNK_COLUMNS);
      await upsert(
        h,
        rows.map((r) => toChunkRecord(r, h.dimension !== null, columns)),
        o?.fresh,
      );
    },
    async upsertSections(collectionId, rows, o) {
      if (rows.length === 0) return;
      const h = await sections(collectionId);
      await upsert(h, rows.map(toSectionRecord), o?.fresh);
    },
    async refresh(collectionId) {
      // New rows are already searchable (flat scan of unindexed fragments); only a missing index must be built now.
      for (const h of await both(collectionId)) await tables.ensureIndexes(h);
    },
    async deleteDocument(collectionId, documentId) {
      const where = `document_id = ${literal(documentId)}`;
      for (const h of await both(collectionId)) await write(h, (t) => t.delete(where));
    },
    async deleteDocumentChunksExcept(collectionId, documentId, keepIds, keepSectionIds) {
      const except = (ids: string[]) => `document_id = ${literal(documentId)}${ids.length ? ` AND NOT (${inList('id', ids)})` : ''}`;
      await write(await chunks(collectionId), (t) => t.delete(except(keepIds)));
      if (keepSectionIds) await write(await sections(collectionId), (t) => t.delete(except(keepSectionIds)));
    },
    async updateDocumentAttributes(collectionId, documentId, attrs) {
      const valuesSql = attributeValues(attrs);
      const ids = typeof documentId === 'string' ? [documentId] : documentId;
      if (Object.keys(valuesSql).length === 0 || ids.length === 0) return;
      // One table version per batch of documents, not per document (a detection run flags thousands at once).
      for (let start = 0; start < ids.length; start += ATTRIBUTE_BATCH) {
        const where = inList('document_id', ids.slice(start, start + ATTRIBUTE_BATCH));
        for (const h of await both(collectionId)) await write(h, (t) => t.update({ where, valuesSql }));
      }
    },
    searchText: async (collectionId, query, o) => {
      const h = searched(await chunks(collectionId));
      return searchText(tables, h, query, o, columnsOf(h.schema, HIT_COLUMNS), fromHitRecord);
    },
    searchPassageTexts: async (collectionId, query, o) => searchText(tables, searched(await chunks(collectionId)), query, o, ['id', TEXT], fromPassageRecord),
    searchSections: async (collectionId, query, o) => searchText(tables, searched(await sections(collectionId)), query, o, SECTION_COLUMNS, fromSectionRecord),
    searchVector: async (collectionId, vector, o) => searchVector(collectionId, searched(await chunks(collectionId)), vector, o),
    chunksOfSection: async (collectionId, sectionId) => {
      const rows = await readChunks(await chunks(collectionId), `section_id = ${literal(sectionId)}`);
      return rows.sort((a, b) => a.position - b.position);
    },
    getChunks: async (collectionId, ids) => getChunks(await chunks(collectionId), ids),
    async countChunks(collectionId, documentId) {
      const { table } = await chunks(collectionId);
      return documentId === undefined ? table.countRows() : table.countRows(`document_id = ${literal(documentId)}`);
    },
    async sizeBytes(collectionId) {
      // The manifest's byte counts of data and index files: no directory walk, and nothing a concurrent write or
      // clean-up can remove under it. Versions not yet cleaned up are not counted.
      const sizes = await Promise.all((await both(collectionId)).map((h) => h.table.stats()));
      return sizes.reduce((total, s) => total + s.totalBytes, 0);
    },
    async optimize(collectionId) {
      for (const h of await both(collectionId)) await optimizeTable(tables, h, opts.maintenance?.retainMs);
    },
    async settle() {
      await leftovers;
      await maintenance?.flush();
    },
    async close() {
      await leftovers;
      await maintenance?.close();
      await tables.close();
    },
  };
}

/** Table names: the collection id without dashes, so a UUID gives `chunks_0f3a…`. */
const tableKey = (collectionId: string): string => {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(collectionId)) throw invalid(`collection id is not usable as a table name: ${collectionId}`);
  return collectionId.replaceAll('-', '');
};
const chunkTable = (collectionId: string): string => `chunks_${tableKey(collectionId)}`;
const sectionTable = (collectionId: string): string => `sections_${tableKey(collectionId)}`;

async function createCollection(tables: LanceTables, collectionId: string, dimension: number | null): Promise<void> {
  if (dimension !== null && !(Number.isInteger(dimension) && dimension > 0)) {
    throw invalid(`vector dimension must be a positive integer or null, got ${dimension}`);
  }
  const { arrow } = await tables.sdk();
  const chunks = await tables.openOrCreate(chunkTable(collectionId), chunkSchema(arrow, dimension));
  if (chunks.dimension !== dimension) {
    throw new DossierError('dimension_mismatch', `collection ${collectionId} already exists with vector dimension ${chunks.dimension}, not ${dimension}`);
  }
  const sections = await tables.openOrCreate(sectionTable(collectionId), sectionSchema(arrow));
  // Built on the empty tables so text search works before the first refresh: LanceDB also scans
  // rows the index has not absorbed yet (checked by the conformance suite).
  await tables.ensureIndexes(chunks);
  await tables.ensureIndexes(sections);
}

/** Throws dimension_mismatch unless `vector` fits the table (none for lexical-only tables). */
function checkVector(collectionId: string, dimension: number | null, vector: Float32Array | null): void {
  const width = vector?.length ?? null;
  if (width === dimension) return;
  const expected = dimension === null ? 'no vector (lexical-only collection)' : `vectors of dimension ${dimension}`;
  const got = width === null ? 'a row without a vector' : `dimension ${width}`;
  throw new DossierError('dimension_mismatch', `collection ${collectionId} takes ${expected}, got ${got}`);
}

/**
 * Records converted to Arrow this many at a time; the event loop runs between slices (a group commit can hold
 * thousands). 256 rows of 512-token chunks held the loop 15–80 ms on a slow 2-core machine (CPU profile beside the
 * pathological files); 64 keep each slice to a few milliseconds.
 */
const ARROW_SLICE = 64;

/** Records as one Arrow table, built slice by slice so no conversion holds the event loop for long. */
async function toArrowTable(tables: LanceTables, h: TableHandle, records: LanceRecord[]): Promise<unknown> {
  const { arrow } = await tables.sdk();
  const schema = h.schema as Arrow.Schema;
  const batches: Arrow.RecordBatch[] = [];
  for (let i = 0; i < records.length; i += ARROW_SLICE) {
    if (i > 0) await new Promise((resolve) => setImmediate(resolve));
    batches.push(...recordsToArrowTable(arrow, schema, records.slice(i, i + ARROW_SLICE)).batches);
  }
  return new arrow.Table(batches);
}

/**
 * One commit of records (called inside the table's write slot by GroupCommit): inserts or replaces rows by id,
 * rows not named stay untouched. Known-new rows are appended: a merge joins the batch against every id in the
 * table, which made ingestion slow down as the table grew (measured at 60k chunks: 525 chunks/s merging,
 * 660 appending).
 */
async function writeRecords(tables: LanceTables, h: TableHandle, records: LanceRecord[], fresh: boolean): Promise<void> {
  const rows = lastById(records);
  const data = await toArrowTable(tables, h, rows);
  tables.appending(h, rows.length); // a merge too: a row it updates is rewritten into the new fragment
  if (fresh) await h.table.add(data);
  else await h.table.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data);
}

/** Keeps the last record of each id: a merge with two source rows for one target row is ambiguous. */
function lastById(records: LanceRecord[]): LanceRecord[] {
  return [...new Map(records.map((r) => [r.id, r])).values()];
}

/**
 * Checks every table of the directory, as found at open: one with more than one small fragment (compaction would
 * merge them) or with rows an index has not absorbed gets an optimize, scheduled as after a write. Without this a
 * table left so by the last process stayed slow until the next write (measured on SciFact: 90 fragments, search
 * 4–5× slower than after one optimize).
 */
async function scheduleLeftovers(tables: LanceTables, maintenance: TableMaintenance): Promise<void> {
  for (const name of await tables.names()) {
    const h = await tables.open(name).catch(() => null);
    if (h && (await needsOptimize(h))) maintenance.noteWrite(h);
  }
}

/** Whether the table has fragments to compact or rows outside one of its indexes. */
export async function needsOptimize(h: TableHandle): Promise<boolean> {
  const { fragmentStats } = await h.table.stats();
  if (fragmentStats.numSmallFragments > 1) return true;
  for (const index of await h.table.listIndices()) {
    if (((await h.table.indexStats(index.name))?.numUnindexedRows ?? 0) > 0) return true;
  }
  return false;
}

/**
 * Folds rows written since the last build into the indexes, compacts fragments, and removes versions replaced
 * more than `retainMs` ago with the files only they used; returns the row count.
 */
async function optimizeTable(tables: LanceTables, h: TableHandle, retainMs = RETAIN_MS): Promise<OptimizeOutcome> {
  await tables.ensureIndexes(h);
  await tables.ensureVectorIndex(h);
  const stats = await tables.write(h, (t) => t.optimize({ cleanupOlderThan: new Date(Date.now() - retainMs) }));
  return { rows: await h.table.countRows(), compacted: stats.compaction.fragmentsRemoved > 0 };
}

async function searchText<Row>(
  tables: LanceTables,
  h: TableHandle,
  query: string,
  opts: IndexSearchOptions,
  columns: string[],
  fromRecord: (r: LanceRecord) => Row,
): Promise<IndexHit<Row>[]> {
  if (opts.limit < 1 || query.trim() === '') return [];
  // Rows written since the last index build are searched by a flat scan that returns the first matches it
  // meets, unsorted, cut at the limit (measured: a document just made ready lost to older, weaker hits at
  // limit 8). Asking for limit + unindexed rows lets every unindexed match through; the top `limit` of the
  // sorted union is then exact. With the index caught up (writes quiet) this is the plain limit. (Reading the
  // count beside the search instead of before it once returned a row twice from a table other processes wrote.)
  const unindexed = await tables.unindexedRows(h);
  const records = recordsOf(
    await h.table
      .query()
      // A plain string is a bag-of-words match query: quotes, parentheses, AND/OR and `-x` are not parsed
      // as operators, so user text cannot make the query fail.
      .fullTextSearch(query, { columns: TEXT })
      .where(searchWhere(opts.filter))
      .select([...columns, '_score'])
      .limit(opts.limit + unindexed)
      .toArrow(),
  );
  const hits = records.map((r) => ({ row: fromRecord(r), score: Number(r._score) }));
  return hits.sort((a, b) => b.score - a.score).slice(0, opts.limit);
}

const VECTOR_NPROBES = 20;
const VECTOR_REFINE = 5;

async function searchVector(collectionId: string, h: TableHandle, vector: Float32Array, opts: IndexSearchOptions): Promise<IndexHit<ChunkHitRow>[]> {
  if (h.dimension === null || vector.length !== h.dimension) {
    const expected = h.dimension === null ? 'no vector search (lexical-only collection)' : `dimension ${h.dimension}`;
    throw new DossierError('dimension_mismatch', `collection ${collectionId} has ${expected}, query vector has ${vector.length}`);
  }
  if (opts.limit < 1) return [];
  const records = await h.table
    .query()
    .nearestTo(vector)
    .distanceType('cosine')
    // Ignored by a flat scan; with an IVF_PQ index (large tables) they trade a little latency for recall:
    // probe more partitions, and re-rank 5× the candidates by exact distance.
    .nprobes(VECTOR_NPROBES)
    .refineFactor(VECTOR_REFINE)
    .where(searchWhere(opts.filter))
    .select([...columnsOf(h.schema, HIT_COLUMNS), '_distance'])
    .limit(opts.limit)
    .toArrow()
    .then(recordsOf);
  // Cosine distance is 1 - cosine similarity; convert so that higher is better.
  return records.map((r) => ({ row: fromHitRecord(r), score: 1 - Number(r._distance) }));
}

async function readChunks(h: TableHandle, where: string): Promise<ChunkRow[]> {
  const records = recordsOf(await h.table.query().where(where).select(columnsOf(h.schema, CHUNK_COLUMNS)).toArrow());
  return records.map(fromChunkRecord);
}

/** Chunks in the order of `ids`; unknown ids are skipped. */
async function getChunks(h: TableHandle, ids: string[]): Promise<ChunkRow[]> {
  const byId = new Map<string, ChunkRow>();
  for (let i = 0; i < ids.length; i += 500) {
    for (const row of await readChunks(h, inList('id', ids.slice(i, i + 500)))) byId.set(row.id, row);
  }
  return ids.flatMap((id) => byId.get(id) ?? []);
}

function attributeValues(attrs: DocumentAttributes): Record<string, string> {
  const values: Record<string, string> = {};
  if (attrs.tags) values.tags = listValue(attrs.tags);
  if (attrs.metadataPairs) values.metadata_pairs = listValue(attrs.metadataPairs);
  if (attrs.canonical !== undefined) values.canonical = attrs.canonical ? 'true' : 'false';
  return values;
}
