import { z } from 'zod';

const uuid = z.string().uuid({ message: 'must be a UUID' });
const interval = z
  .number()
  .int()
  .min(5)
  .max(7 * 24 * 60)
  .nullable();
const maxDeletePercent = z.number().min(0).max(100);

const common = { collectionId: uuid, intervalMinutes: interval.optional(), maxDeletePercent: maxDeletePercent.optional() };
const httpUrl = z
  .string()
  .trim()
  .max(2048)
  .url()
  .refine((u) => /^https?:\/\//i.test(u), { message: 'must be an http(s) URL' });

const accessKeyId = z.string().trim().min(1).max(256);
const secretAccessKey = z.string().min(1).max(1024);

/** A folder on the server's disk (inside an allowed root). */
const folderSourceSchema = z.strictObject({ ...common, kind: z.literal('folder'), path: z.string().trim().min(1).max(4096) });

/** An S3 prefix on any S3-protocol store (endpoint absent: AWS); the credentials are sealed at rest, never shown. */
const s3SourceSchema = z.strictObject({
  ...common,
  kind: z.literal('s3'),
  endpoint: httpUrl.optional(),
  region: z.string().trim().min(1).max(64).optional(),
  bucket: z
    .string()
    .trim()
    .min(3)
    .max(63)
    .regex(/^[a-z0-9][a-z0-9.-]*[a-z0-9]$/, 'must be an S3 bucket name'),
  prefix: z.string().max(1024).optional(),
  forcePathStyle: z.boolean().optional(),
  accessKeyId,
  secretAccessKey,
});

/** POST …/sources: a folder on the server's disk or an S3 prefix, synced into a collection. */
export const createSourceSchema = z.discriminatedUnion('kind', [folderSourceSchema, s3SourceSchema]);
export type S3SourceInput = z.infer<typeof s3SourceSchema>;

/**
 * PATCH …/sources/:sourceId: pause or resume, change the schedule or the deletion limit, or (an S3 source) its
 * credentials, both together: sealed again, never echoed.
 */
export const updateSourceSchema = z.strictObject({
  paused: z.boolean().optional(),
  intervalMinutes: interval.optional(),
  maxDeletePercent: maxDeletePercent.optional(),
  accessKeyId: accessKeyId.optional(),
  secretAccessKey: secretAccessKey.optional(),
});

/** POST …/sources/:sourceId/runs: run now; `force` lets it delete more than the source's share. */
export const runSourceSchema = z.strictObject({ force: z.boolean().optional() });

/** POST …/manifest/delete: documents of a synced folder whose files are gone, by source path (soft delete). */
export const deleteByPathSchema = z.strictObject({ paths: z.array(z.string().min(1).max(1024)).min(1).max(500) });
