import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import type * as Arrow from 'apache-arrow';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordsToArrowTable } from '../src/lancedb/columnar.ts';
import { chunkSchema, sectionSchema, toChunkRecord, toSectionRecord } from '../src/lancedb/schema.ts';
import { loadSdk } from '../src/lancedb/sdk.ts';

/** Arrow as the adapter loads it: LanceDB's own copy. */
let arrow: typeof Arrow;
beforeAll(async () => {
  arrow = (await loadSdk()).arrow;
});

const schemaOf = (dimension: number | null) => chunkSchema(arrow, dimension);
const asJson = (table: { toArray(): { toJSON(): unknown }[] }) => JSON.stringify(table.toArray().map((row) => row.toJSON()));

/** Chunk records with every awkward value: multi-byte text, empty strings and lists, a null level, false flags. */
function chunkRecords(dimension: number | null) {
  const texts = ['Résumé 日本 😀 \u202Eevil', '', 'plain text', 'x'.repeat(5000)];
  return Array.from({ length: 9 }, (_, i) =>
    toChunkRecord(
      {
        id: `chunk-${i}`,
        documentId: `doc-${i % 2}`,
        sectionId: `sec-${i}`,
        position: i,
        content: texts[i % texts.length]!,
        tokenCount: i * 7,
        sectionTitle: i % 3 ? `Title ${i} ✓` : '',
        sectionLevel: i % 4 ? i % 6 : null,
        vector: dimension ? Float32Array.from({ length: dimension }, (_, d) => i + d / 10) : null,
        tags: i % 2 ? ['a', 'b c', 'é'] : [],
        metadataPairs: i % 3 ? [`k=${i}`] : [],
        canonical: i % 5 !== 0,
      },
      dimension !== null,
    ),
  );
}

describe('recordsToArrowTable', () => {
  it('builds the same table as LanceDB makeArrowTable, with and without vectors', () => {
    for (const dimension of [null, 3]) {
      const records = chunkRecords(dimension);
      const ours = recordsToArrowTable(arrow, schemaOf(dimension), records);
      const theirs = lancedb.makeArrowTable(records, { schema: schemaOf(dimension) as never }) as unknown as Arrow.Table;
      expect(ours.numRows).toBe(records.length);
      expect(asJson(ours)).toBe(asJson(theirs));
    }
  });

  it('builds section rows', () => {
    const records = [0, 1, 2].map((i) =>
      toSectionRecord({
        id: `s${i}`,
        documentId: 'd',
        title: `Über ${i}`,
        summary: i ? 'a summary' : '',
        level: i + 1,
        tags: ['t'],
        metadataPairs: [],
        canonical: true,
      }),
    );
    const schema = sectionSchema(arrow);
    expect(asJson(recordsToArrowTable(arrow, schema, records))).toBe(
      asJson(lancedb.makeArrowTable(records, { schema: schema as never }) as unknown as Arrow.Table),
    );
  });

  it('refuses a null in a column that is not nullable, and a vector of the wrong size', () => {
    const [record] = chunkRecords(3);
    expect(() => recordsToArrowTable(arrow, schemaOf(3), [{ ...record, id: null }])).toThrow(/id is not nullable/);
    expect(() => recordsToArrowTable(arrow, schemaOf(3), [{ ...record, vector: Float32Array.of(1, 2) }])).toThrow(/2 dimensions, the column 3/);
  });

  it('is written to and read back from a real LanceDB table unchanged', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dossier-columnar-'));
    try {
      const db = await lancedb.connect(dir);
      const records = chunkRecords(3);
      const table = await db.createEmptyTable('chunks', schemaOf(3) as never);
      await table.add(recordsToArrowTable(arrow, schemaOf(3), records) as never);
      const back = (await table.query().toArray()).sort((a, b) => a.position - b.position);
      expect(back.map((row) => [row.id, row.content, row.section_level, [...row.tags], row.canonical, [...row.vector]])).toEqual(
        records.map((r) => [r.id, r.content, r.section_level, r.tags, r.canonical, [...(r.vector as Float32Array)]]),
      );
      table.close();
      db.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
