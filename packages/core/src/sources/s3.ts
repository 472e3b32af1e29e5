import { previewSecret, type SecretBox } from '../auth/secrets.ts';
import { DossierError } from '../domain/errors.ts';
import type { S3SourceConfig } from '../ports/source-reader.ts';
import type { S3SourceInput } from './schemas.ts';
import type { SourceRecord } from './types.ts';

/** A key prefix as stored: no leading slash, one trailing slash unless it is the whole bucket. */
const prefixOf = (raw: string | undefined): string => {
  const trimmed = (raw ?? '').replace(/^\/+/, '');
  return trimmed === '' || trimmed.endsWith('/') ? trimmed : `${trimmed}/`;
};

/**
 * The stored fields of an S3 source: where it reads (settings and `bucket/prefix` as its location) and its
 * credentials sealed with the SecretBox, like provider keys. Only a preview of the access key id is ever shown.
 */
export function s3SourceFields(secrets: SecretBox, input: S3SourceInput): Pick<SourceRecord, 'location' | 'settings' | 'credentialsEncrypted'> {
  const prefix = prefixOf(input.prefix);
  const settings: Record<string, string> = {
    bucket: input.bucket,
    prefix,
    region: input.region ?? 'us-east-1',
    // A custom endpoint (MinIO, s3rver, R2…) is reached path-style unless told otherwise.
    forcePathStyle: String(input.forcePathStyle ?? input.endpoint !== undefined),
    accessKeyPreview: previewSecret(input.accessKeyId),
    ...(input.endpoint ? { endpoint: input.endpoint } : {}),
  };
  return { location: `${input.bucket}/${prefix}`, ...sealedCredentials(secrets, settings, input) };
}

/** New credentials of an S3 source, sealed, with the preview of the access key id in its settings (PATCH). */
export function sealedCredentials(
  secrets: SecretBox,
  settings: Record<string, string>,
  input: { accessKeyId: string; secretAccessKey: string },
): Pick<SourceRecord, 'settings' | 'credentialsEncrypted'> {
  const credentials = JSON.stringify({ accessKeyId: input.accessKeyId, secretAccessKey: input.secretAccessKey });
  return { settings: { ...settings, accessKeyPreview: previewSecret(input.accessKeyId) }, credentialsEncrypted: secrets.encrypt(credentials) };
}

/** The client settings of an S3 source, its credentials unsealed (for the run only; never logged or returned). */
export function s3ConfigOf(secrets: SecretBox, source: SourceRecord): S3SourceConfig {
  const { settings } = source;
  if (!source.credentialsEncrypted || !settings.bucket) throw new DossierError('internal', 'The S3 source has no bucket or credentials');
  let credentials: S3SourceConfig['credentials'];
  try {
    credentials = JSON.parse(secrets.decrypt(source.credentialsEncrypted));
  } catch {
    throw new DossierError('internal', 'The S3 source credentials cannot be unsealed (was the master key changed?)');
  }
  return {
    endpoint: settings.endpoint ?? null,
    region: settings.region ?? 'us-east-1',
    bucket: settings.bucket,
    prefix: settings.prefix ?? '',
    forcePathStyle: settings.forcePathStyle === 'true',
    credentials,
  };
}
