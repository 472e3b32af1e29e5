import type { ChunkHitRow, ChunkRow, PassageText, SectionRow } from '@dossier/core';
import type { Field, List, Schema } from 'apache-arrow';
import type { ArrowModule, ArrowSchemaLike, ArrowTableLike, LanceRecord } from './sdk.ts';

/**
 * Table layout. Columns are snake_case because LanceDB filters are SQL, where unquoted identifiers fold
 * case. `text` is the full-text-indexed column: the chunk's section title plus its content (or a section's
 * title plus summary), so a title word counts in BM25 while `content` stays the chunk's own text.
 */
export const VECTOR = 'vector';
export const TEXT = 'text';

/** Where a chunk came from in its document (issue 39): its character span and its positions on the original's pages. */
const CHAR_START = 'char_start';
const CHAR_END = 'char_end';
const POSITIONS = 'positions';

/** Columns a search hit reads (ChunkHitRow): the attributes are filters, and their list columns are slow to read back. */
export const HIT_COLUMNS = [
  'id',
  'document_id',
  'section_id',
  'position',
  'content',
  'section_title',
  'section_level',
  'token_count',
  CHAR_START,
  CHAR_END,
  POSITIONS,
];

/** Columns returned by chunk reads: everything but the vector and the derived `text`. */
export const CHUNK_COLUMNS = [...HIT_COLUMNS, 'tags', 'metadata_pairs', 'canonical'];

/** A column that chunk tables created before it existed lack (see ChunkRow.sectionLevel). */
const SECTION_LEVEL = 'section_level';

/** Columns added after the first chunk tables were written: an older table lacks them, and is read and written without. */
const LATER_COLUMNS = new Set([SECTION_LEVEL, CHAR_START, CHAR_END, POSITIONS]);

/** Those of `columns` (HIT_COLUMNS or CHUNK_COLUMNS) a chunk table has: all, less the later columns a table predates. */
export function columnsOf(schema: ArrowSchemaLike, columns: string[]): string[] {
  const has = new Set(schema.fields.map((f) => f.name));
  return columns.filter((c) => !LATER_COLUMNS.has(c) || has.has(c));
}

export const SECTION_COLUMNS = ['id', 'document_id', 'title', 'summary', 'level', 'tags', 'metadata_pairs', 'canonical'];

/** Arrow schema of a chunk table; the vector column exists only when `dimension` is not null. */
export function chunkSchema(a: ArrowModule, dimension: number | null): Schema {
  const vector = dimension === null ? [] : [new a.Field(VECTOR, new a.FixedSizeList(dimension, new a.Field('item', new a.Float32(), true)), false)];
  return new a.Schema([
    ...['id', 'document_id', 'section_id'].map((n) => new a.Field(n, new a.Utf8(), false)),
    new a.Field('position', new a.Int32(), false),
    ...['content', 'section_title', TEXT].map((n) => new a.Field(n, new a.Utf8(), false)),
    new a.Field(SECTION_LEVEL, new a.Int32(), true),
    new a.Field('token_count', new a.Int32(), false),
    new a.Field(CHAR_START, new a.Int32(), true),
    new a.Field(CHAR_END, new a.Int32(), true),
    new a.Field(POSITIONS, new a.Utf8(), true),
    ...vector,
    ...attributeFields(a),
  ]);
}

/** Arrow schema of a section table. */
export function sectionSchema(a: ArrowModule): Schema {
  return new a.Schema([
    ...['id', 'document_id', 'title', 'summary', TEXT].map((n) => new a.Field(n, new a.Utf8(), false)),
    new a.Field('level', new a.Int32(), false),
    ...attributeFields(a),
  ]);
}

/** The denormalised document attributes every row carries for in-index filtering. */
function attributeFields(a: ArrowModule): Field[] {
  const list = (): List => new a.List(new a.Field('item', new a.Utf8(), true));
  return [new a.Field('tags', list(), false), new a.Field('metadata_pairs', list(), false), new a.Field('canonical', new a.Bool(), false)];
}

/** The vector width recorded in a chunk table's schema, or null for a lexical-only table. */
export function dimensionOf(schema: ArrowSchemaLike): number | null {
  const field = schema.fields.find((f) => f.name === VECTOR);
  if (!field) return null;
  const size = (field.type as { listSize?: unknown }).listSize;
  if (typeof size !== 'number') throw new Error(`chunk table vector column is not a fixed-size list: ${String(field.type)}`);
  return size;
}

/** A chunk row as a record of a table with `columns` (written without the provenance an older table lacks). */
export function toChunkRecord(row: ChunkRow, withVector: boolean, columns: string[] = CHUNK_COLUMNS): LanceRecord {
  const record: LanceRecord = {
    id: row.id,
    document_id: row.documentId,
    section_id: row.sectionId,
    position: row.position,
    content: row.content,
    section_title: row.sectionTitle,
    [TEXT]: `${row.sectionTitle}\n${row.content}`,
    ...(columns.includes(SECTION_LEVEL) ? { [SECTION_LEVEL]: row.sectionLevel } : {}),
    token_count: row.tokenCount,
    tags: row.tags,
    metadata_pairs: row.metadataPairs,
    canonical: row.canonical,
  };
  if (columns.includes(CHAR_START))
    Object.assign(record, { [CHAR_START]: row.charStart ?? null, [CHAR_END]: row.charEnd ?? null, [POSITIONS]: row.positions ?? null });
  if (withVector) record[VECTOR] = row.vector;
  return record;
}

export function toSectionRecord(row: SectionRow): LanceRecord {
  return {
    id: row.id,
    document_id: row.documentId,
    title: row.title,
    summary: row.summary,
    [TEXT]: `${row.title}\n${row.summary}`,
    level: row.level,
    tags: row.tags,
    metadata_pairs: row.metadataPairs,
    canonical: row.canonical,
  };
}

/**
 * The rows of a query result as plain records, read a column at a time. `toArray()` gives a proxy per row whose
 * every field read walks Arrow's visitor; reading the columns directly took a tenth of a search's time off
 * (measured: 0.2 ms of a 2.5 ms full-text search of 15 rows).
 */
export function recordsOf(table: ArrowTableLike): LanceRecord[] {
  const names = table.schema.fields.map((f) => f.name);
  const columns = names.map((name) => table.getChild(name));
  const records: LanceRecord[] = [];
  for (let row = 0; row < table.numRows; row++) {
    const record: LanceRecord = {};
    names.forEach((name, c) => {
      record[name] = columns[c]?.get(row);
    });
    records.push(record);
  }
  return records;
}

/** A search hit read back from the index (HIT_COLUMNS). */
export function fromHitRecord(r: LanceRecord): ChunkHitRow {
  return {
    id: String(r.id),
    documentId: String(r.document_id),
    sectionId: String(r.section_id),
    position: Number(r.position),
    content: String(r.content),
    tokenCount: Number(r.token_count),
    sectionTitle: String(r.section_title),
    sectionLevel: nullableNumber(r.section_level),
    charStart: nullableNumber(r[CHAR_START]),
    charEnd: nullableNumber(r[CHAR_END]),
    positions: r[POSITIONS] === undefined || r[POSITIONS] === null ? null : String(r[POSITIONS]),
  };
}

/** A feedback passage: its id and indexed text (section title, newline, content). */
export const fromPassageRecord = (r: LanceRecord): PassageText => ({ id: String(r.id), text: String(r[TEXT]) });

const nullableNumber = (v: unknown): number | null => (v === undefined || v === null ? null : Number(v));

/** A chunk read back from the index; vectors are never returned. */
export function fromChunkRecord(r: LanceRecord): ChunkRow {
  return {
    ...fromHitRecord(r),
    vector: null,
    tags: strings(r.tags),
    metadataPairs: strings(r.metadata_pairs),
    canonical: Boolean(r.canonical),
  };
}

export function fromSectionRecord(r: LanceRecord): SectionRow {
  return {
    id: String(r.id),
    documentId: String(r.document_id),
    title: String(r.title),
    summary: String(r.summary),
    level: Number(r.level),
    tags: strings(r.tags),
    metadataPairs: strings(r.metadata_pairs),
    canonical: Boolean(r.canonical),
  };
}

/** An Arrow list cell (an iterable Vector) as a plain string array. */
function strings(cell: unknown): string[] {
  if (cell === null || cell === undefined) return [];
  return Array.from(cell as Iterable<unknown>, String);
}
