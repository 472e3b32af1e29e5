import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDossier, type Dossier } from '@dossier/adapters';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { threePagePdf } from './fixtures/documents.ts';

describe('a multi-page PDF through the pipeline', () => {
  let dataDir: string;
  let dossier: Dossier;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'dossier-paged-'));
    dossier = await createDossier({ dataDir, embeddingModel: 'none', workers: { pollMs: 50 } });
  });
  afterAll(async () => {
    await dossier.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('records which pages each section spans, with page boundaries that survive image URL rewriting', async () => {
    const d = await dossier.local();
    const col = await d.collections.create({ name: 'paged' });
    const doc = await d.documents.add(col.id, { filename: 'repair.pdf', bytes: threePagePdf() });
    expect((await d.documents.wait(doc.id, 120_000)).status).toBe('ready');
    const sections = await d.documents.sections(doc.id);
    expect(sections.length).toBeGreaterThan(1);
    for (const s of sections) {
      expect(s.pageStart).toBeGreaterThanOrEqual(1);
      expect(s.pageEnd).toBeGreaterThanOrEqual(s.pageStart!);
      expect(s.pageEnd).toBeLessThanOrEqual(3);
    }
    expect(sections[0]!.pageStart).toBe(1);
    expect(sections.at(-1)!.pageEnd).toBe(3);
    const section = await d.search.section(sections.at(-1)!.id);
    expect(section.pageEnd).toBe(3);
    const markdown = await d.documents.markdown(doc.id);
    expect(markdown).not.toContain('dossier://img-');
    expect(markdown).toMatch(/\/v1\/documents\/[0-9a-f-]+\/images\/[0-9a-f-]+/);
  }, 180_000);
});
