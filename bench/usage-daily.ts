/**
 * GET /v1/usage/daily's work (issue 37): a month of usage events summed per UTC day, on SQLite, at growing numbers
 * of events in the month (queries and credits spread over its days), next to the plain totals of GET /v1/usage.
 * Figures: bench/RESULTS.md, "Issue 37".
 *
 *     node --import tsx bench/usage-daily.ts [--events 10000,100000] [--rounds 5]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createDossier } from '@dossier/adapters';
import { dossierContext } from '@dossier/core/testing';

const { values } = parseArgs({ options: { events: { type: 'string', default: '10000,100000' }, rounds: { type: 'string', default: '5' } } });
const sizes = String(values.events).split(',').map(Number);
const rounds = Number(values.rounds);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function timeIt(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'dossier-usage-daily-bench-'));
  const dossier = await createDossier({ dataDir, embeddingModel: 'none', workers: { concurrency: 0 } });
  try {
    const owner = await dossier.auth.bootstrap('bench@example.test', 'a long bench passphrase');
    if (!owner) throw new Error('bootstrap refused');
    const sandbox = { projectId: owner.projectId, env: 'live' as const };
    const store = dossierContext(dossier).store;
    const now = new Date();
    const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
    const span = Math.max(1, now.getTime() - start);
    let recorded = 0;
    for (const size of sizes) {
      for (; recorded < size; recorded++) {
        const at = new Date(start + ((recorded * 7919) % span)).toISOString();
        await store.addUsage(sandbox.projectId, 'live', recorded % 10 === 0 ? 'credits' : 'queries', 1, at);
      }
      await dossier.usage.daily(sandbox); // warm
      const daily = [];
      const totals = [];
      for (let round = 0; round < rounds; round++) {
        daily.push(await timeIt(() => dossier.usage.daily(sandbox)));
        totals.push(await timeIt(() => dossier.usage.meters(sandbox)));
      }
      console.log(
        `${size.toLocaleString()} events this month: daily series median ${median(daily).toFixed(1)} ms (max ${Math.max(...daily).toFixed(1)}); totals median ${median(totals).toFixed(1)} ms`,
      );
    }
  } finally {
    await dossier.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
