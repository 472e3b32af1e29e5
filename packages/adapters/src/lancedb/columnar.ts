import type * as Arrow from 'apache-arrow';
import type { LanceRecord } from './sdk.ts';

/** A column's validity: its null count and, when there are nulls, the bitmap of the valid values. */
type Validity = { nullCount: number; nullBitmap?: Uint8Array };

/**
 * Records as an Arrow table of the given schema, built a column at a time: each string column is written into one
 * buffer, value after value, with no per-value builder. LanceDB's `makeArrowTable` (Arrow's builders underneath) took
 * 1.7–2.5 ms per 64 chunk rows of 512 tokens on this machine, 0.6 ms this way, and it was the largest run of work left
 * on the event loop beside the pathological files (issue 11: slices of 40–100 ms under load).
 * Supports the column types the chunk and section schemas use: Utf8, Int32, Bool, List<Utf8> and
 * FixedSizeList<Float32>; a null is allowed where the field is nullable.
 */
export function recordsToArrowTable(arrow: typeof Arrow, schema: Arrow.Schema, records: LanceRecord[]): Arrow.Table {
  const children = schema.fields.map((field) =>
    columnData(
      arrow,
      field,
      records.map((r) => r[field.name]),
    ),
  );
  const struct = arrow.makeData({ type: new arrow.Struct(schema.fields), length: records.length, nullCount: 0, children });
  return new arrow.Table([new arrow.RecordBatch(schema, struct)]);
}

function columnData(arrow: typeof Arrow, field: Arrow.Field, values: unknown[]): Arrow.Data {
  const type = field.type as Arrow.DataType;
  const nulls = nullBitmap(values, field);
  if (arrow.DataType.isUtf8(type)) return utf8Data(arrow, values as (string | null)[], nulls);
  if (arrow.DataType.isInt(type) && type.bitWidth === 32) {
    return arrow.makeData({ type, length: values.length, ...nulls, data: Int32Array.from(values as (number | null)[], (v) => v ?? 0) });
  }
  if (arrow.DataType.isBool(type)) return arrow.makeData({ type, length: values.length, ...nulls, data: bits(values.map(Boolean)) });
  if (arrow.DataType.isList(type) && arrow.DataType.isUtf8(type.children[0]!.type))
    return utf8ListData(arrow, type, values as (Iterable<string> | null)[], nulls);
  if (arrow.DataType.isFixedSizeList(type) && arrow.DataType.isFloat(type.children[0]!.type))
    return vectorData(arrow, type, values as (ArrayLike<number> | null)[], nulls);
  throw new Error(`recordsToArrowTable: column ${field.name} has an unsupported type ${String(type)}`);
}

/** Validity of a column: none when it has no null (Arrow's "all valid"); a null in a non-nullable field is an error. */
function nullBitmap(values: unknown[], field: Arrow.Field): Validity {
  const nullCount = values.reduce<number>((n, v) => (v === null || v === undefined ? n + 1 : n), 0);
  if (nullCount === 0) return { nullCount };
  if (!field.nullable) throw new Error(`recordsToArrowTable: column ${field.name} is not nullable but has ${nullCount} null values`);
  return { nullCount, nullBitmap: bits(values.map((v) => v !== null && v !== undefined)) };
}

/** Booleans packed least-significant bit first, as Arrow lays out bitmaps. */
function bits(flags: boolean[]): Uint8Array {
  const out = new Uint8Array((flags.length + 7) >> 3);
  flags.forEach((on, i) => {
    if (on) out[i >> 3]! |= 1 << (i & 7);
  });
  return out;
}

/** Strings encoded back to back into one UTF-8 buffer (3 bytes per UTF-16 unit at most), with their offsets. */
function encodeStrings(strings: (string | null)[]): { offsets: Int32Array; bytes: Uint8Array } {
  const offsets = new Int32Array(strings.length + 1);
  const buffer = Buffer.allocUnsafe(strings.reduce((n, s) => n + (s?.length ?? 0), 0) * 3);
  let at = 0;
  strings.forEach((text, i) => {
    if (text) at += buffer.write(text, at);
    offsets[i + 1] = at;
  });
  return { offsets, bytes: new Uint8Array(buffer.buffer, buffer.byteOffset, at) };
}

function utf8Data(arrow: typeof Arrow, values: (string | null)[], nulls: Validity): Arrow.Data {
  const { offsets, bytes } = encodeStrings(values);
  return arrow.makeData({ type: new arrow.Utf8(), length: values.length, ...nulls, valueOffsets: offsets, data: bytes });
}

function utf8ListData(arrow: typeof Arrow, type: Arrow.List, values: (Iterable<string> | null)[], nulls: Validity): Arrow.Data {
  const lists = values.map((v) => (v ? [...v] : []));
  const items = lists.flat();
  const listOffsets = new Int32Array(lists.length + 1);
  lists.forEach((list, i) => {
    listOffsets[i + 1] = listOffsets[i]! + list.length;
  });
  const child = utf8Data(arrow, items, { nullCount: 0 });
  return arrow.makeData({ type, length: values.length, ...nulls, valueOffsets: listOffsets, child });
}

function vectorData(arrow: typeof Arrow, type: Arrow.FixedSizeList, values: (ArrayLike<number> | null)[], nulls: Validity): Arrow.Data {
  const size = type.listSize;
  const flat = new Float32Array(values.length * size);
  values.forEach((vector, i) => {
    if (!vector) return;
    if (vector.length !== size) throw new Error(`recordsToArrowTable: a vector has ${vector.length} dimensions, the column ${size}`);
    flat.set(vector, i * size);
  });
  const child = arrow.makeData({ type: type.children[0]!.type as Arrow.Float32, length: flat.length, nullCount: 0, data: flat });
  return arrow.makeData({ type, length: values.length, ...nulls, child });
}
