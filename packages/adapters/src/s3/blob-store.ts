import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { type BlobStat, type BlobStore, checkBlobKey, checkBlobPrefix, type ClientUploads, DossierError, notFound } from '@dossier/core';


/** Where an S3-protocol store keeps objects: a bucket, a key prefix inside it, and the client's settings. */
export interface S3BlobStoreOptions {
  bucket: string;
  /** Prepended to every key (e.g. `dossier/`), so one bucket can hold several deployments. */
  prefix?: string;
  /** Client settings: `endpoint` and `forcePathStyle` for MinIO, s3rver or another S3-protocol server. */
  client: S3ClientConfig;
}

const isMissing = (err: unknown): boolean => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
};

/**
 * BlobStore on an S3-protocol object store (issue 13: several nodes share one file store). PutObject is atomic
 * per object; streams go up as multipart uploads (lib-storage) and are cut off, with nothing left behind, once
 * they pass maxBytes.
 */
export function createS3BlobStore(opts: S3BlobStoreOptions): BlobStore & { close(): void } {
  const client = new S3Client(opts.client);
  const presigner = new S3Client({ ...opts.client, requestChecksumCalculation: 'WHEN_REQUIRED' });
  const base = opts.prefix ? opts.prefix.replace(/\/*$/, '/') : '';
  const keyOf = (key: string): string => `${base}${checkBlobKey(key).join('/')}`;
  const prefixOf = (prefix: string): string => `${base}${checkBlobPrefix(prefix).join('/')}/`;
  const Bucket = opts.bucket;
  /**
   * Writes to one key from this process go one after the other (the last one wins, whole). S3 itself makes each
   * PUT atomic; S3-protocol servers that write objects to disk in place (s3rver, used in tests) do not, and two
   * overlapping PUTs there could leave a mix of both.
   */
  const writing = new Map<string, Promise<unknown>>();
  function oneWriterAt<T>(objectKey: string, write: () => Promise<T>): Promise<T> {
    const before = writing.get(objectKey) ?? Promise.resolve();
    const mine = before.catch(() => {}).then(write);
    const tracked = mine.catch(() => {});
    writing.set(objectKey, tracked);
    void tracked.then(() => {
      if (writing.get(objectKey) === tracked) writing.delete(objectKey);
    });
    return mine;
  }

  async function* listed(prefix: string): AsyncGenerator<{ Key?: string; Size?: number }> {
    let ContinuationToken: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix: prefix, ContinuationToken }));
      yield* page.Contents ?? [];
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  return {
    async put(key, data) {
      const objectKey = keyOf(key);
      await oneWriterAt(objectKey, () => client.send(new PutObjectCommand({ Bucket, Key: objectKey, Body: data, ContentLength: data.byteLength })));
    },
    async putStream(key, source, maxBytes) {
      const objectKey = keyOf(key);
      return oneWriterAt(objectKey, () => uploadStream(client, Bucket, objectKey, key, source, maxBytes));
    },
    async get(key) {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket, Key: keyOf(key) }));
        return await object.Body!.transformToByteArray();
      } catch (err) {
        if (isMissing(err)) throw notFound(`Object ${key}`);
        throw err;
      }
    },
    async stat(key): Promise<BlobStat | null> {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket, Key: keyOf(key) }));
        return { size: Number(head.ContentLength ?? 0) };
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: keyOf(key) }));
    },
    async deletePrefix(prefix) {
      let batch: { Key: string }[] = [];
      const flush = async () => {
        if (batch.length) await client.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: batch, Quiet: true } }));
        batch = [];
      };
      for await (const object of listed(prefixOf(prefix))) {
        if (object.Key) batch.push({ Key: object.Key });
        if (batch.length === 1000) await flush();
      }
      await flush();
    },
    async sizeOfPrefix(prefix) {
      let total = 0;
      for await (const object of listed(prefixOf(prefix))) total += Number(object.Size ?? 0);
      return total;
    },
    clientUploads: clientUploads(Bucket, client, presigner, keyOf),
    close: () => {
      client.destroy();
      presigner.destroy();
    },
  };
}

/**
 * Presigned PUTs straight into the bucket. The length is a signed header (`X-Amz-SignedHeaders=content-length;host`),
 * so S3 refuses a body of any other size. The presigning client computes no checksum: the SDK's default would sign
 * the CRC32 of an empty body into the URL, and every real upload would then fail its integrity check.
 */
function clientUploads(Bucket: string, client: S3Client, presigner: S3Client, keyOf: (key: string) => string): ClientUploads {
  return {
    presignPut: async (key, sizeBytes, expiresIn) =>
      getSignedUrl(presigner, new PutObjectCommand({ Bucket, Key: keyOf(key), ContentLength: sizeBytes }), { expiresIn }),
    async move(fromKey, toKey) {
      const source = keyOf(fromKey);
      try {
        await client.send(new CopyObjectCommand({ Bucket, Key: keyOf(toKey), CopySource: `${Bucket}/${source.split('/').map(encodeURIComponent).join('/')}` }));
      } catch (err) {
        if (isMissing(err)) throw notFound(`Object ${fromKey}`);
        throw err;
      }
      await client.send(new DeleteObjectCommand({ Bucket, Key: source }));
    },
  };
}

/** Count bytes as they pass, failing once there are more than maxBytes (the upload is then aborted). */
async function* bounded(source: AsyncIterable<Uint8Array>, key: string, maxBytes: number, seen: { bytes: number }): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) {
    seen.bytes += chunk.byteLength;
    if (seen.bytes > maxBytes) throw new DossierError('payload_too_large', `Object ${key} is larger than ${maxBytes} bytes`);
    yield chunk;
  }
}

async function uploadStream(client: S3Client, bucket: string, objectKey: string, key: string, source: AsyncIterable<Uint8Array>, maxBytes: number): Promise<number> {
  const seen = { bytes: 0 };
  const upload = new Upload({ client, params: { Bucket: bucket, Key: objectKey, Body: Readable.from(bounded(source, key, maxBytes, seen)) } });
  try {
    await upload.done();
  } catch (err) {
    await upload.abort().catch(() => {});
    throw err;
  }
  return seen.bytes;
}

/**
 * An S3 store from a URL (server setting DOSSIER_S3_URL): `s3://bucket/prefix?endpoint=…&region=…&forcePathStyle=true`.
 * Credentials come from the AWS SDK's usual chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, a profile, a role).
 */
export function s3BlobStoreFromUrl(url: string): BlobStore & { close(): void } {
  const parsed = new URL(url);
  if (parsed.protocol !== 's3:' || !parsed.hostname) throw new DossierError('invalid_input', `S3 URL must look like s3://bucket/prefix, got '${url}'`);
  const endpoint = parsed.searchParams.get('endpoint') ?? undefined;
  const pathStyle = parsed.searchParams.get('forcePathStyle');
  return createS3BlobStore({
    bucket: parsed.hostname,
    prefix: decodeURIComponent(parsed.pathname.replace(/^\/+/, '')),
    client: {
      region: parsed.searchParams.get('region') ?? process.env.AWS_REGION ?? 'us-east-1',
      ...(endpoint ? { endpoint } : {}),
      forcePathStyle: pathStyle === null ? endpoint !== undefined : pathStyle === 'true',
    },
  });
}
