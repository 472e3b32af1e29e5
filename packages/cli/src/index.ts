/** @dossier/cli: the `dossier` command-line client, also callable in-process. */
export const CLI_NAME = 'dossier';
export { EXIT, EXIT_CODE_DOCS, type ExitCode } from './exit-codes.ts';
export { type Io, run, VERSION } from './run.ts';
export { TELEMETRY_STATEMENT } from './telemetry.ts';
export { DEFAULT_MAX_DELETE_SHARE, type SyncEvent, type SyncOptions, type SyncPlan, type SyncResult, syncFolder } from './sync/sync.ts';
export { ApiClient } from './client.ts';
