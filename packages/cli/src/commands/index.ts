import type { Command } from '../command.ts';
import { agentsCommand } from './agents.ts';
import { keysCommand } from './keys.ts';
import { membersCommand } from './members.ts';
import { loginCommand, logoutCommand } from './login.ts';
import { claimsCommand } from './claims.ts';
import { collectionsCommand } from './collections.ts';
import { configCommand } from './config.ts';
import { contradictionsCommand } from './contradictions.ts';
import { docsCommand } from './docs.ts';
import { duplicatesCommand } from './duplicates.ts';
import { evalCommand } from './eval.ts';
import { doctorCommand } from './doctor.ts';
import { mcpCommand } from './mcp.ts';
import { providerKeysCommand } from './provider-keys.ts';
import { queryCommand } from './query.ts';
import { researchCommand } from './research.ts';
import { scanCommand } from './scan.ts';
import { serveCommand } from './serve.ts';
import { uploadCommand } from './upload.ts';
import { syncCommand } from './sync.ts';
import { sourcesCommand } from './sources.ts';
import { watchCommand } from './watch.ts';
import { webhooksCommand } from './webhooks.ts';

/** Every command, in the order `dossier --help` lists them. */
export const COMMANDS: readonly Command[] = [
  uploadCommand,
  syncCommand,
  sourcesCommand,
  queryCommand,
  scanCommand,
  researchCommand,
  watchCommand,
  collectionsCommand,
  docsCommand,
  claimsCommand,
  contradictionsCommand,
  duplicatesCommand,
  evalCommand,
  providerKeysCommand,
  agentsCommand,
  loginCommand,
  logoutCommand,
  keysCommand,
  membersCommand,
  webhooksCommand,
  mcpCommand,
  doctorCommand,
  configCommand,
  serveCommand,
];
