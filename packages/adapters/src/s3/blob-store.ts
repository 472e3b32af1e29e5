import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { type BlobStat, type BlobStore, checkBlobKey, checkBlobPrefix, type ClientUploads, DossierError, notFound } from '@dossier/core';
import { loadS3Sdk, type S3Sdk } from './sdk.ts';

/** Check that the AWS SDK is installed (a server configured for S3 stops at start without it); the error names the packages. */
export async function checkS3Sdk(): Promise<void> {
  await loadS3Sdk();
}

/**
 * S3 client settings: region, endpoint, forcePathStyle and credentials, plus any other S3ClientConfig field.
 * Spelled out here so the declarations of @dossier/adapters do not need the optional AWS SDK installed.
 */
export interface S3ClientSettings {
  region?: string;
  endpoint?: string;
  forcePathStyle?: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  [setting: string]: unknown;
}

/** Where an S3-protocol store keeps objects: a bucket, a key prefix inside it, and the client's settings. */
export interface S3BlobStoreOptions {
  bucket: string;
  /** Prepended to every key (e.g. `dossier/`), so one bucket can hold several deployments. */
  prefix?: string;
  /** Client settings: `endpoint` and `forcePathStyle` for MinIO, s3rver or another S3-protocol server. */
  client: S3ClientSettings;
}

const isMissing = (err: unknown): boolean => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
};

/** The SDK and this store's two clients, made on first use. */
interface S3Connection {
  sdk: S3Sdk;
  client: S3Client;
  /** Signs upload URLs; computes no checksum (see clientUploads). */
  presigner: S3Client;
}

/** Writes to one key from this process, one after the other (the last one wins, whole). */
function serialWriter(): <T>(objectKey: string, write: () => Promise<T>) => Promise<T> {
  const writing = new Map<string, Promise<unknown>>();
  return <T>(objectKey: string, write: () => Promise<T>): Promise<T> => {
    const before = writing.get(objectKey) ?? Promise.resolve();
    const mine = before.catch(() => {}).then(write);
    const tracked = mine.catch(() => {});
    writing.set(objectKey, tracked);
    void tracked.then(() => {
      if (writing.get(objectKey) === tracked) writing.delete(objectKey);
    });
    return mine;
  };
}

/**
 * BlobStore on an S3-protocol object store (issue 13: several nodes share one file store). PutObject is atomic
 * per object; streams go up as multipart uploads (lib-storage) and are cut off, with nothing left behind, once
 * they pass maxBytes. The AWS SDK (an optional peer dependency) loads on first use; without it every call fails
 * with a not_configured error that says what to install.
 * S3 itself makes each PUT atomic; S3-protocol servers that write objects to disk in place (s3rver, used in
 * tests) do not, and two overlapping PUTs there could leave a mix of both: writes to one key go one at a time.
 */
export function createS3BlobStore(opts: S3BlobStoreOptions): BlobStore & { close(): void } {
  let connection: Promise<S3Connection> | undefined;
  const connect = (): Promise<S3Connection> =>
    (connection ??= loadS3Sdk().then((sdk) => {
      const config = opts.client as S3ClientConfig;
      return { sdk, client: new sdk.s3.S3Client(config), presigner: new sdk.s3.S3Client({ ...config, requestChecksumCalculation: 'WHEN_REQUIRED' }) };
    }));
  const base = opts.prefix ? opts.prefix.replace(/\/*$/, '/') : '';
  const keyOf = (key: string): string => `${base}${checkBlobKey(key).join('/')}`;
  const prefixOf = (prefix: string): string => `${base}${checkBlobPrefix(prefix).join('/')}/`;
  const Bucket = opts.bucket;
  const oneWriterAt = serialWriter();

  async function* listed(prefix: string): AsyncGenerator<{ Key?: string; Size?: number }> {
    const { sdk, client } = await connect();
    let ContinuationToken: string | undefined;
    do {
      const page = await client.send(new sdk.s3.ListObjectsV2Command({ Bucket, Prefix: prefix, ContinuationToken }));
      yield* page.Contents ?? [];
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  async function statOf(key: string): Promise<BlobStat | null> {
    const { sdk, client } = await connect();
    try {
      const head = await client.send(new sdk.s3.HeadObjectCommand({ Bucket, Key: keyOf(key) }));
      return { size: Number(head.ContentLength ?? 0) };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  return {
    async put(key, data) {
      const objectKey = keyOf(key);
      const { sdk, client } = await connect();
      await oneWriterAt(objectKey, () => client.send(new sdk.s3.PutObjectCommand({ Bucket, Key: objectKey, Body: data, ContentLength: data.byteLength })));
    },
    async putStream(key, source, maxBytes) {
      const objectKey = keyOf(key);
      const connected = await connect();
      return oneWriterAt(objectKey, () => uploadStream(connected, { bucket: Bucket, objectKey, key }, source, maxBytes));
    },
    async get(key) {
      const { sdk, client } = await connect();
      try {
        const object = await client.send(new sdk.s3.GetObjectCommand({ Bucket, Key: keyOf(key) }));
        return await object.Body!.transformToByteArray();
      } catch (err) {
        if (isMissing(err)) throw notFound(`Object ${key}`);
        throw err;
      }
    },
    stat: statOf,
    async move(fromKey, toKey) {
      const [source, target] = [keyOf(fromKey), keyOf(toKey)];
      const { sdk, client } = await connect();
      if (source === target) {
        if (!(await statOf(fromKey))) throw notFound(`Object ${fromKey}`);
        return;
      }
      await oneWriterAt(target, () => copyObject(sdk, client, { Bucket, source, target, fromKey }));
      await client.send(new sdk.s3.DeleteObjectCommand({ Bucket, Key: source }));
    },
    async delete(key) {
      const { sdk, client } = await connect();
      await client.send(new sdk.s3.DeleteObjectCommand({ Bucket, Key: keyOf(key) }));
    },
    async deletePrefix(prefix) {
      const { sdk, client } = await connect();
      let batch: { Key: string }[] = [];
      const flush = async () => {
        if (batch.length) await client.send(new sdk.s3.DeleteObjectsCommand({ Bucket, Delete: { Objects: batch, Quiet: true } }));
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
    clientUploads: clientUploads(Bucket, connect, keyOf),
    close: () => {
      void connection?.then(
        ({ client, presigner }) => {
          client.destroy();
          presigner.destroy();
        },
        () => {},
      );
    },
  };
}

/**
 * Presigned PUTs straight into the bucket. The length is a signed header (`X-Amz-SignedHeaders=content-length;host`),
 * so S3 refuses a body of any other size. The presigning client computes no checksum: the SDK's default would sign
 * the CRC32 of an empty body into the URL, and every real upload would then fail its integrity check.
 */
function clientUploads(Bucket: string, connect: () => Promise<S3Connection>, keyOf: (key: string) => string): ClientUploads {
  return {
    async presignPut(key, sizeBytes, expiresIn) {
      const { sdk, presigner } = await connect();
      return sdk.presigner.getSignedUrl(presigner, new sdk.s3.PutObjectCommand({ Bucket, Key: keyOf(key), ContentLength: sizeBytes }), { expiresIn });
    },
  };
}

/** A server-side copy (S3 copies up to 5 GB in one request, past the server's upload limit); not_found when the source is missing. */
async function copyObject(sdk: S3Sdk, client: S3Client, keys: { Bucket: string; source: string; target: string; fromKey: string }): Promise<void> {
  const CopySource = `${keys.Bucket}/${keys.source.split('/').map(encodeURIComponent).join('/')}`;
  try {
    await client.send(new sdk.s3.CopyObjectCommand({ Bucket: keys.Bucket, Key: keys.target, CopySource }));
  } catch (err) {
    if (isMissing(err)) throw notFound(`Object ${keys.fromKey}`);
    throw err;
  }
}

/** Count bytes as they pass, failing once there are more than maxBytes (the upload is then aborted). */
async function* bounded(source: AsyncIterable<Uint8Array>, key: string, maxBytes: number, seen: { bytes: number }): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) {
    seen.bytes += chunk.byteLength;
    if (seen.bytes > maxBytes) throw new DossierError('payload_too_large', `Object ${key} is larger than ${maxBytes} bytes`);
    yield chunk;
  }
}

async function uploadStream(
  { sdk, client }: S3Connection,
  target: { bucket: string; objectKey: string; key: string },
  source: AsyncIterable<Uint8Array>,
  maxBytes: number,
): Promise<number> {
  const seen = { bytes: 0 };
  const body = Readable.from(bounded(source, target.key, maxBytes, seen));
  const upload = new sdk.storage.Upload({ client, params: { Bucket: target.bucket, Key: target.objectKey, Body: body } });
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
