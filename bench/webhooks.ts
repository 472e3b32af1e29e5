/**
 * Webhook delivery throughput to a local receiver: N events recorded in the outbox, then timed until the
 * receiver has answered 200 to every one (signed POSTs through the SSRF-checked sender, one attempt each).
 * Usage: node --import tsx bench/webhooks.ts [events=2000] [concurrency=8]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDossier } from '@dossier/adapters';
import type { ServiceEvent } from '@dossier/core';
import { dossierContext } from '@dossier/core/testing';

const total = Number(process.argv[2] ?? 2000);
const concurrency = Number(process.argv[3] ?? 8);
const dataDir = mkdtempSync(join(tmpdir(), 'dossier-bench-hooks-'));
const seen = new Set<string>();
let done: () => void = () => {};
const finished = new Promise<void>((r) => (done = r));
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    seen.add(String(req.headers['x-service-event-id']));
    res.writeHead(200).end('ok');
    if (seen.size >= total) done();
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const dossier = await createDossier({
  dataDir,
  embeddingModel: 'none',
  allowModelDownload: false,
  webhooks: { allowHttpLoopback: true, settings: { concurrency } },
});
const local = await dossier.local();
const projectId = local.access.projectId;
const project = await dossierContext(dossier).store.getProject(projectId);
await dossier.webhooks.create({ access: local.access }, project!.orgId, projectId, {
  url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
});
const events: ServiceEvent[] = Array.from({ length: total }, (_, i) => ({
  type: 'document.ready',
  projectId,
  env: 'live',
  data: { documentId: `doc-${i}`, collectionId: 'bench', projectId },
}));
const started = performance.now();
for (let i = 0; i < total; i += 100) await dossierContext(dossier).store.recordEvents(events.slice(i, i + 100));
dossierContext(dossier).eventsRecorded();
await finished;
const seconds = (performance.now() - started) / 1000;
console.log(
  `webhook delivery: ${total} events in ${seconds.toFixed(2)} s = ${(total / seconds).toFixed(0)} events/s (concurrency ${concurrency}, loopback receiver)`,
);
await dossier.close();
receiver.close();
rmSync(dataDir, { recursive: true, force: true });
