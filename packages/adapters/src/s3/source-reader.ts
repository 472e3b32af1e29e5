import type { S3Client } from '@aws-sdk/client-s3';
import { DossierError, type S3SourceConfig, type S3SourceOpener, type SourceEntry } from '@dossier/core';
import { guardedAgents, refusedEndpointReason } from './endpoint-guard.ts';
import { loadS3Sdk, type S3Sdk } from './sdk.ts';

/** Keys that are folders' markers or hidden (a path part starting with '.'), never synced; like a folder source's. */
const skipped = (path: string): boolean => path === '' || path.endsWith('/') || path.split('/').some((part) => part.startsWith('.'));

/** The client of one run, once its endpoint passed the guard (see endpoint-guard.ts). */
async function guardedClient(config: S3SourceConfig, allowPrivate: boolean): Promise<{ sdk: S3Sdk; client: S3Client }> {
  const refused = config.endpoint ? await refusedEndpointReason(config.endpoint, allowPrivate) : null;
  if (refused) throw new DossierError('invalid_input', `The S3 endpoint ${config.endpoint} is refused: ${refused}`);
  const sdk = await loadS3Sdk();
  const client = new sdk.s3.S3Client({
    region: config.region,
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    forcePathStyle: config.forcePathStyle,
    credentials: config.credentials,
    // NodeHttpHandler's options: every connection's address is checked again (a name may resolve elsewhere later).
    requestHandler: guardedAgents(allowPrivate),
  });
  return { sdk, client };
}

/**
 * S3 prefixes as server-side sources (issue 43): ListObjects pages give every key under the prefix with its ETag
 * and size (the stamp `etag:<ETag>`, so an unchanged object is skipped without being read); GetObject reads the others.
 * Paths are the keys relative to the prefix. The AWS SDK loads on first use, like the S3 blob store's. The endpoint
 * must be a public address unless `allowPrivateEndpoints` (the server's DOSSIER_SOURCES_ALLOW_PRIVATE_ENDPOINTS).
 */
export function createS3SourceOpener(opts: { allowPrivateEndpoints?: boolean } = {}): S3SourceOpener {
  return (config) => openGuarded(config, opts.allowPrivateEndpoints ?? false);
}

/** An S3 prefix as a source whose endpoint must be a public address (see createS3SourceOpener). */
export const openS3Source: S3SourceOpener = createS3SourceOpener();

function openGuarded(config: S3SourceConfig, allowPrivate: boolean): ReturnType<S3SourceOpener> {
  let connection: Promise<{ sdk: S3Sdk; client: S3Client }> | undefined;
  const connect = () => (connection ??= guardedClient(config, allowPrivate));
  const Bucket = config.bucket;
  return {
    async list(): Promise<SourceEntry[]> {
      const { sdk, client } = await connect();
      const out: SourceEntry[] = [];
      // ListObjects pages by Marker (the last key seen), which every S3-protocol store takes. ListObjectsV2 would do
      // as well, but s3rver (the tests' and bench's store) fails any truncated V2 answer on Node 20: it makes its
      // continuation token with a cipher OpenSSL 3 no longer offers ("We encountered an internal error").
      for (let Marker: string | undefined; ; ) {
        const page = await client.send(new sdk.s3.ListObjectsCommand({ Bucket, Prefix: config.prefix, Marker }));
        const objects = page.Contents ?? [];
        for (const object of objects) {
          const path = (object.Key ?? '').slice(config.prefix.length).normalize('NFC');
          if (!object.Key || skipped(path)) continue;
          out.push({ path, stamp: `etag:${(object.ETag ?? '').replaceAll('"', '')}`, size: Number(object.Size ?? 0) });
        }
        const last = objects.at(-1)?.Key;
        if (!page.IsTruncated || !last) break;
        Marker = last;
      }
      return out.sort((a, b) => (a.path < b.path ? -1 : 1));
    },
    async read(path: string): Promise<Uint8Array> {
      const { sdk, client } = await connect();
      const object = await client.send(new sdk.s3.GetObjectCommand({ Bucket, Key: `${config.prefix}${path}` }));
      if (!object.Body) throw new DossierError('not_found', `Object ${path} has no body`);
      return object.Body.transformToByteArray();
    },
    async *stream(path: string): AsyncGenerator<Uint8Array> {
      const { sdk, client } = await connect();
      const object = await client.send(new sdk.s3.GetObjectCommand({ Bucket, Key: `${config.prefix}${path}` }));
      if (!object.Body) throw new DossierError('not_found', `Object ${path} has no body`);
      // In Node the body is a Readable: its chunks as they arrive (a consumer that stops early destroys it).
      yield* object.Body as AsyncIterable<Uint8Array>;
    },
    close() {
      void connection?.then(
        ({ client }) => client.destroy(),
        () => {},
      );
    },
  };
}
