import type {
  DuplicateFingerprints,
  DuplicateGroupRecord,
  DuplicateMemberRecord,
  DuplicateRunRecord,
  DuplicateRunStatus,
  FingerprintMatch,
  SharedPassage,
} from '@dossier/core';
import type { Selectable } from 'kysely';
import { type Kysely, sql } from './runtime.ts';
import type { StoreContext } from './dialect.ts';
import type { DuplicateRunsTable, MetadataDatabase } from './schema.ts';

/** The fingerprint index, duplicate groups, dismissed pairs and detection runs (DuplicateStore). */

const INSERT_BATCH = 400;

/**
 * Delete the posting rows of these documents, found from their fingerprint lists: the postings are keyed by
 * (collection, fingerprint, document) alone (migration 0071), so each is a probe of that key. Runs before a
 * document's row goes (documents are deleted through here: the postings have no foreign key to cascade).
 */
export async function deleteDocumentPostings({ db, dialect }: StoreContext, documentIds: string[]): Promise<void> {
  if (documentIds.length === 0) return;
  const ids = dialect.jsonObjectEntries(JSON.stringify(Object.fromEntries(documentIds.map((id) => [id, 0]))));
  await sql`
    delete from duplicate_fingerprints where (collection_id, fingerprint, document_id) in (
      select d.collection_id, cast(f.value as bigint), d.document_id
      from ${ids} i join duplicate_documents d on d.document_id = i.key, ${dialect.jsonArrayElements(sql`d.fingerprints`)} f)`.execute(db);
}

export async function deleteFingerprints({ db, dialect }: StoreContext, documentId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await deleteDocumentPostings({ db: trx, dialect }, [documentId]);
    await trx.deleteFrom('duplicate_documents').where('document_id', '=', documentId).execute();
  });
}

/** Documents whose fingerprints go in one statement (each batch is one JSON parameter, so the SQL text stays constant). */
const FINGERPRINT_BATCH = 500;

/** Entries of one collection, in batches of FINGERPRINT_BATCH. */
function fingerprintBatches(entries: DuplicateFingerprints[]): { collectionId: string; batch: DuplicateFingerprints[] }[] {
  const byCollection = new Map<string, DuplicateFingerprints[]>();
  for (const entry of entries) {
    const list = byCollection.get(entry.collectionId) ?? [];
    list.push(entry);
    byCollection.set(entry.collectionId, list);
  }
  return [...byCollection].flatMap(([collectionId, list]) =>
    Array.from({ length: Math.ceil(list.length / FINGERPRINT_BATCH) }, (_, index) => ({
      collectionId,
      batch: list.slice(index * FINGERPRINT_BATCH, (index + 1) * FINGERPRINT_BATCH),
    })),
  );
}

/**
 * Upsert the documents' rows of one collection: counts and the fingerprint list. The batch travels as one JSON
 * object keyed by document id, `{id: [shingleCount, fingerprintCount, [fingerprint…]]}`, unpacked in SQL: a
 * multi-row VALUES list would compile and prepare a statement with thousands of parameters per batch.
 */
async function upsertDocumentRows({ db, dialect }: StoreContext, collectionId: string, batch: DuplicateFingerprints[]): Promise<void> {
  const rows = dialect.jsonObjectEntries(
    JSON.stringify(Object.fromEntries(batch.map((entry) => [entry.documentId, [entry.shingleCount, entry.fingerprints.length, entry.fingerprints]]))),
  );
  // "where true" keeps SQLite from reading ON CONFLICT as part of the SELECT's join.
  await sql`
    insert into duplicate_documents (document_id, collection_id, shingle_count, fingerprint_count, fingerprints)
    select d.key, ${collectionId}, cast(d.value ->> 0 as bigint), cast(d.value ->> 1 as bigint), d.value ->> 2 from ${rows} d where true
    on conflict (document_id) do update
    set shingle_count = excluded.shingle_count, fingerprint_count = excluded.fingerprint_count, fingerprints = excluded.fingerprints`.execute(db);
}

/** The posting rows of a collection are written by one caller at a time (Postgres; SQLite has one connection). */
const postingsLock = (collectionId: string): string => `duplicate-fingerprints:${collectionId}`;

/** Replace the fingerprints of the entries' documents: their rows and their posting rows. */
export async function putFingerprints({ db, dialect }: StoreContext, entries: DuplicateFingerprints[]): Promise<void> {
  if (entries.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (const { collectionId, batch } of fingerprintBatches(entries)) {
      await dialect.lockForTransaction(trx, postingsLock(collectionId));
      const prints = dialect.jsonObjectEntries(JSON.stringify(Object.fromEntries(batch.map((entry) => [entry.documentId, entry.fingerprints]))));
      await deleteDocumentPostings(
        { db: trx, dialect },
        batch.map((entry) => entry.documentId),
      );
      await upsertDocumentRows({ db: trx, dialect }, collectionId, batch);
      await sql`
        insert into duplicate_fingerprints (collection_id, fingerprint, document_id)
        select ${collectionId}, cast(f.value as bigint), d.key from ${prints} d, ${dialect.jsonArrayElements(sql`d.value`)} f`.execute(trx);
    }
  });
}

/**
 * Record the documents' fingerprints without touching the posting rows (a detection run's fingerprint jobs):
 * rebuildFingerprintPostings then writes the collection's postings at once, in index order. Posting rows inserted
 * batch by batch land all over the (collection, fingerprint, document) index, so each batch rewrote most of its
 * pages: at 100,000 documents that write was most of a run.
 */
export async function putDocumentFingerprints({ db, dialect }: StoreContext, entries: DuplicateFingerprints[]): Promise<void> {
  if (entries.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (const { collectionId, batch } of fingerprintBatches(entries)) await upsertDocumentRows({ db: trx, dialect }, collectionId, batch);
  });
}

/** Documents whose posting rows go in one sorted insert of rebuildFingerprintPostings (bounds the sort and each statement). */
const REBUILD_BATCH = 10_000;

/**
 * Write the collection's posting rows again from its documents' fingerprint lists (rows from before migration
 * 0070, without a list, keep theirs), one transaction, each batch of documents inserted in index order.
 */
export async function rebuildFingerprintPostings({ db, dialect }: StoreContext, collectionId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await dialect.lockForTransaction(trx, postingsLock(collectionId));
    await sql`
      delete from duplicate_fingerprints where collection_id = ${collectionId} and document_id not in (
        select document_id from duplicate_documents where collection_id = ${collectionId} and fingerprints is null)`.execute(trx);
    const listed = await trx
      .selectFrom('duplicate_documents')
      .select('document_id')
      .where('collection_id', '=', collectionId)
      .where('fingerprints', 'is not', null)
      .orderBy('document_id')
      .execute();
    for (let start = 0; start < listed.length; start += REBUILD_BATCH) {
      const ids = dialect.jsonObjectEntries(JSON.stringify(Object.fromEntries(listed.slice(start, start + REBUILD_BATCH).map((row) => [row.document_id, 0]))));
      await sql`
        insert into duplicate_fingerprints (collection_id, fingerprint, document_id)
        select ${collectionId}, cast(f.value as bigint), d.document_id
        from ${ids} i join duplicate_documents d on d.document_id = i.key, ${dialect.jsonArrayElements(sql`d.fingerprints`)} f
        order by 2, 3`.execute(trx);
    }
  });
}

/** Fingerprints of the collection held by at most maxPosting documents (common boilerplate suggests nothing). */
function selectiveFingerprints(db: Kysely<MetadataDatabase>, collectionId: string, maxPosting: number) {
  return db
    .selectFrom('duplicate_fingerprints')
    .select('fingerprint')
    .where('collection_id', '=', collectionId)
    .groupBy('fingerprint')
    .having((eb) => eb.fn.countAll(), '<=', maxPosting);
}

export async function fingerprintMatches(
  { db }: StoreContext,
  collectionId: string,
  documentId: string,
  fingerprints: number[],
  maxPosting: number,
): Promise<FingerprintMatch[]> {
  if (fingerprints.length === 0) return [];
  const shared = new Map<string, number>();
  for (let start = 0; start < fingerprints.length; start += INSERT_BATCH) {
    const rows = await db
      .selectFrom('duplicate_fingerprints')
      .select(['document_id', (eb) => eb.fn.countAll<number>().as('shared')])
      .where('collection_id', '=', collectionId)
      .where('fingerprint', 'in', fingerprints.slice(start, start + INSERT_BATCH))
      .where('document_id', '!=', documentId)
      .where(
        'fingerprint',
        'in',
        selectiveFingerprints(db, collectionId, maxPosting).where('fingerprint', 'in', fingerprints.slice(start, start + INSERT_BATCH)),
      )
      .groupBy('document_id')
      .execute();
    for (const row of rows) shared.set(row.document_id, (shared.get(row.document_id) ?? 0) + Number(row.shared));
  }
  if (shared.size === 0) return [];
  const counts = await db
    .selectFrom('duplicate_documents')
    .select(['document_id', 'fingerprint_count'])
    .where('document_id', 'in', [...shared.keys()])
    .execute();
  return counts.map((row) => ({ documentId: row.document_id, shared: shared.get(row.document_id) ?? 0, fingerprintCount: Number(row.fingerprint_count) }));
}

export async function fingerprintPairs({ db }: StoreContext, collectionId: string, minShared: number, maxPosting: number) {
  const rows = await sql<{ left_id: string; right_id: string; shared: number; left_count: number; right_count: number }>`
    with selective as (
      select fingerprint from duplicate_fingerprints where collection_id = ${collectionId}
      group by fingerprint having count(*) between 2 and ${maxPosting}
    ),
    postings as (
      select f.fingerprint, f.document_id from duplicate_fingerprints f
      join selective s on s.fingerprint = f.fingerprint
      where f.collection_id = ${collectionId}
    ),
    pairs as (
      select a.document_id as left_id, b.document_id as right_id, count(*) as shared
      from postings a join postings b on a.fingerprint = b.fingerprint and a.document_id < b.document_id
      group by a.document_id, b.document_id having count(*) >= ${minShared}
    )
    select p.left_id, p.right_id, p.shared, l.fingerprint_count as left_count, r.fingerprint_count as right_count
    from pairs p
    join duplicate_documents l on l.document_id = p.left_id
    join duplicate_documents r on r.document_id = p.right_id`.execute(db);
  return rows.rows.map((row) => ({
    left: { documentId: row.left_id, shared: Number(row.shared), fingerprintCount: Number(row.left_count) },
    right: { documentId: row.right_id, shared: Number(row.shared), fingerprintCount: Number(row.right_count) },
    shared: Number(row.shared),
  }));
}

export async function fingerprintedDocuments({ db }: StoreContext, collectionId: string): Promise<string[]> {
  const rows = await db.selectFrom('duplicate_documents').select('document_id').where('collection_id', '=', collectionId).execute();
  return rows.map((row) => row.document_id);
}

async function groupsWithMembers(db: Kysely<MetadataDatabase>, groupIds: string[]): Promise<DuplicateGroupRecord[]> {
  if (groupIds.length === 0) return [];
  const groups = await db.selectFrom('duplicate_groups').selectAll().where('id', 'in', groupIds).execute();
  const members = await db
    .selectFrom('duplicate_members')
    .innerJoin('documents', 'documents.id', 'duplicate_members.document_id')
    .select([
      'duplicate_members.group_id',
      'duplicate_members.document_id',
      'duplicate_members.relationship',
      'duplicate_members.coverage_to_canonical',
      'duplicate_members.coverage_from_canonical',
      'duplicate_members.shared_passages',
      'documents.filename',
    ])
    .where('duplicate_members.group_id', 'in', groupIds)
    .orderBy('documents.created_at')
    .orderBy('documents.id')
    .execute();
  const byGroup = new Map(groupIds.map((id) => [id, [] as DuplicateMemberRecord[]]));
  for (const row of members) {
    byGroup.get(row.group_id)?.push({
      documentId: row.document_id,
      filename: row.filename,
      relationship: row.relationship as DuplicateMemberRecord['relationship'],
      coverageToCanonical: row.coverage_to_canonical === null ? null : Number(row.coverage_to_canonical),
      coverageFromCanonical: row.coverage_from_canonical === null ? null : Number(row.coverage_from_canonical),
      ...(row.shared_passages ? { sharedPassages: JSON.parse(row.shared_passages) as SharedPassage[] } : {}),
    });
  }
  const order = new Map(groupIds.map((id, index) => [id, index]));
  return groups
    .map((group) => ({
      id: group.id,
      collectionId: group.collection_id,
      canonicalDocumentId: group.canonical_document_id,
      detectedAt: group.detected_at,
      members: byGroup.get(group.id) ?? [],
    }))
    .sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
}

const memberRows = (group: DuplicateGroupRecord) =>
  group.members.map((member) => ({
    group_id: group.id,
    document_id: member.documentId,
    relationship: member.relationship,
    coverage_to_canonical: member.coverageToCanonical,
    coverage_from_canonical: member.coverageFromCanonical,
    shared_passages: member.sharedPassages ? JSON.stringify(member.sharedPassages) : null,
  }));

/** Put the group's members in it, taking each out of any group it was in (a document is in one group at most). */
async function placeMembers(trx: Kysely<MetadataDatabase>, group: DuplicateGroupRecord): Promise<void> {
  const documentIds = group.members.map((member) => member.documentId);
  await trx.deleteFrom('duplicate_members').where('document_id', 'in', documentIds).execute();
  await trx.insertInto('duplicate_members').values(memberRows(group)).execute();
}

export async function insertDuplicateGroup({ db }: StoreContext, group: DuplicateGroupRecord): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('duplicate_groups')
      .values({ id: group.id, collection_id: group.collectionId, canonical_document_id: group.canonicalDocumentId, detected_at: group.detectedAt })
      .execute();
    await placeMembers(trx, group);
  });
}

export async function replaceDuplicateGroup({ db }: StoreContext, group: DuplicateGroupRecord): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('duplicate_groups').set({ canonical_document_id: group.canonicalDocumentId }).where('id', '=', group.id).execute();
    await trx.deleteFrom('duplicate_members').where('group_id', '=', group.id).execute();
    await placeMembers(trx, group);
  });
}

export async function deleteDuplicateGroup({ db }: StoreContext, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('duplicate_members').where('group_id', '=', id).execute();
    await trx.deleteFrom('duplicate_groups').where('id', '=', id).execute();
  });
}

export async function getDuplicateGroup({ db }: StoreContext, id: string): Promise<DuplicateGroupRecord | null> {
  return (await groupsWithMembers(db, [id]))[0] ?? null;
}

export async function duplicateGroupOf({ db }: StoreContext, documentId: string): Promise<DuplicateGroupRecord | null> {
  const row = await db.selectFrom('duplicate_members').select('group_id').where('document_id', '=', documentId).executeTakeFirst();
  return row ? ((await groupsWithMembers(db, [row.group_id]))[0] ?? null) : null;
}

export async function listDuplicateGroups({ db }: StoreContext, collectionId: string, limit: number, offset: number) {
  const total = await db
    .selectFrom('duplicate_groups')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('collection_id', '=', collectionId)
    .executeTakeFirst();
  const ids = await db
    .selectFrom('duplicate_groups')
    .select('id')
    .where('collection_id', '=', collectionId)
    .orderBy('detected_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return {
    total: Number(total?.n ?? 0),
    items: await groupsWithMembers(
      db,
      ids.map((row) => row.id),
    ),
  };
}

export async function dismissDuplicatePairs({ db }: StoreContext, collectionId: string, documentIds: string[]): Promise<void> {
  const sorted = [...documentIds].sort();
  const rows = sorted.flatMap((left, index) =>
    sorted.slice(index + 1).map((right) => ({ collection_id: collectionId, left_document_id: left, right_document_id: right })),
  );
  for (let start = 0; start < rows.length; start += INSERT_BATCH) {
    await db
      .insertInto('duplicate_dismissals')
      .values(rows.slice(start, start + INSERT_BATCH))
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

export async function isDismissedPair({ db }: StoreContext, left: string, right: string): Promise<boolean> {
  const [first, second] = [left, right].sort() as [string, string];
  const row = await db
    .selectFrom('duplicate_dismissals')
    .select('left_document_id')
    .where('left_document_id', '=', first)
    .where('right_document_id', '=', second)
    .executeTakeFirst();
  return row !== undefined;
}

const runFromRow = (row: Selectable<DuplicateRunsTable>): DuplicateRunRecord => ({
  id: row.id,
  collectionId: row.collection_id,
  status: row.status as DuplicateRunStatus,
  jobsEnqueued: row.jobs_enqueued === null ? null : Number(row.jobs_enqueued),
  jobsProcessed: row.jobs_processed === null ? null : Number(row.jobs_processed),
  duplicatesDetected: row.duplicates_detected === null ? null : Number(row.duplicates_detected),
  duplicateGroupsCreated: row.duplicate_groups_created === null ? null : Number(row.duplicate_groups_created),
  startedAt: row.started_at,
  completedAt: row.completed_at,
  error: row.error,
  createdAt: row.created_at,
});

const RUN_COLUMNS = {
  status: 'status',
  jobsEnqueued: 'jobs_enqueued',
  jobsProcessed: 'jobs_processed',
  duplicatesDetected: 'duplicates_detected',
  duplicateGroupsCreated: 'duplicate_groups_created',
  startedAt: 'started_at',
  completedAt: 'completed_at',
  error: 'error',
} as const;

function runColumns(patch: Partial<DuplicateRunRecord>): Partial<DuplicateRunsTable> {
  const columns: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(RUN_COLUMNS)) {
    const value = patch[field as keyof typeof RUN_COLUMNS];
    if (value !== undefined) columns[column] = value;
  }
  return columns as Partial<DuplicateRunsTable>;
}

export async function insertDuplicateRun({ db }: StoreContext, run: DuplicateRunRecord): Promise<void> {
  await db
    .insertInto('duplicate_runs')
    .values({ id: run.id, collection_id: run.collectionId, created_at: run.createdAt, status: run.status, ...runColumns(run) })
    .execute();
}

export async function updateDuplicateRun({ db }: StoreContext, id: string, patch: Partial<DuplicateRunRecord>): Promise<void> {
  const columns = runColumns(patch);
  if (Object.keys(columns).length > 0) await db.updateTable('duplicate_runs').set(columns).where('id', '=', id).execute();
}

export async function countDuplicateJob({ db }: StoreContext, id: string): Promise<DuplicateRunRecord> {
  return db.transaction().execute(async (trx) => {
    await trx
      .updateTable('duplicate_runs')
      .set((eb) => ({ jobs_processed: eb(eb.fn.coalesce('jobs_processed', eb.val(0)), '+', 1) }))
      .where('id', '=', id)
      .execute();
    return runFromRow(await trx.selectFrom('duplicate_runs').selectAll().where('id', '=', id).executeTakeFirstOrThrow());
  });
}

export async function latestDuplicateRun({ db }: StoreContext, collectionId: string): Promise<DuplicateRunRecord | null> {
  const row = await db
    .selectFrom('duplicate_runs')
    .selectAll()
    .where('collection_id', '=', collectionId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? runFromRow(row) : null;
}
