/**
 * Issue 42: what checking a management-plane token's session on every request costs. Every JWT now names a session
 * (`sid`) that is looked up (by primary key) on each request, so ending a session or removing a member ends its
 * tokens at once. This measures, on an embedded Dossier (SQLite), the whole `auth.verifyToken` (signature, account,
 * epoch and session) and the session lookup it added alone (`store.getSession`), interleaved in rounds.
 *
 *   node --import tsx bench/session-lookup.ts [--calls 5000] [--rounds 5]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createDossier } from '@dossier/adapters';
import { dossierContext } from '@dossier/core/testing';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '5000' }, rounds: { type: 'string', default: '5' } } });
const calls = Number(values.calls);
const rounds = Number(values.rounds);

async function microsPerCall(verify: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await verify();
  return Number(process.hrtime.bigint() - start) / 1000 / calls;
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'dossier-session-bench-'));
  const dossier = await createDossier({ dataDir, embeddingModel: 'none', workers: { concurrency: 0 } });
  try {
    await dossier.auth.bootstrap('bench@example.test', 'a long bench passphrase');
    const withSession = (await dossier.auth.login({ email: 'bench@example.test', password: 'a long bench passphrase' })).token;
    const { sessionId } = await dossier.auth.verifyToken(withSession);
    const store = dossierContext(dossier).store;
    const figures = { verify: [] as number[], lookup: [] as number[] };
    for (let round = 0; round < rounds; round++) {
      figures.verify.push(await microsPerCall(() => dossier.auth.verifyToken(withSession)));
      figures.lookup.push(await microsPerCall(() => store.getSession(sessionId!)));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(
      `${calls} calls × ${rounds} rounds, median µs per call: verifyToken ${median(figures.verify).toFixed(1)}, of which the session lookup ${median(figures.lookup).toFixed(1)}`,
    );
    console.log(
      `rounds, verifyToken: ${figures.verify.map((x) => x.toFixed(1)).join(', ')}; session lookup: ${figures.lookup.map((x) => x.toFixed(1)).join(', ')}`,
    );
  } finally {
    await dossier.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
