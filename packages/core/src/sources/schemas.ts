import { z } from 'zod';

const uuid = z.string().uuid({ message: 'must be a UUID' });
const interval = z.number().int().min(5).max(7 * 24 * 60).nullable();
const maxDeletePercent = z.number().min(0).max(100);

/** POST …/sources: a folder on the server's disk (inside an allowed root) synced into a collection. */
export const createSourceSchema = z.strictObject({
  collectionId: uuid,
  kind: z.literal('folder'),
  path: z.string().trim().min(1).max(4096),
  intervalMinutes: interval.optional(),
  maxDeletePercent: maxDeletePercent.optional(),
});

/** PATCH …/sources/:sourceId: pause or resume, change the schedule or the deletion limit. */
export const updateSourceSchema = z.strictObject({
  paused: z.boolean().optional(),
  intervalMinutes: interval.optional(),
  maxDeletePercent: maxDeletePercent.optional(),
});

/** POST …/sources/:sourceId/runs: run now; `force` lets it delete more than the source's share. */
export const runSourceSchema = z.strictObject({ force: z.boolean().optional() });

/** POST …/manifest/delete: documents of a synced folder whose files are gone, by source path (soft delete). */
export const deleteByPathSchema = z.strictObject({ paths: z.array(z.string().min(1).max(1024)).min(1).max(500) });
