import { importOptional } from '../optional.ts';

/**
 * The AWS SDK's three packages, optional peers of @dossier/adapters: only an install that stores files in S3 needs
 * them. Kept in this module, which no public declaration names, so the published types compile without the SDK.
 */
export interface S3Sdk {
  s3: typeof import('@aws-sdk/client-s3');
  storage: typeof import('@aws-sdk/lib-storage');
  presigner: typeof import('@aws-sdk/s3-request-presigner');
}

const S3_FEATURE = 'The S3 blob store (DOSSIER_S3_URL)';

/** Load the AWS SDK; without it, a not_configured error that names the packages to install. */
export async function loadS3Sdk(): Promise<S3Sdk> {
  const [s3, storage, presigner] = await Promise.all([
    importOptional<S3Sdk['s3']>('@aws-sdk/client-s3', S3_FEATURE),
    importOptional<S3Sdk['storage']>('@aws-sdk/lib-storage', S3_FEATURE),
    importOptional<S3Sdk['presigner']>('@aws-sdk/s3-request-presigner', S3_FEATURE),
  ]);
  return { s3, storage, presigner };
}
