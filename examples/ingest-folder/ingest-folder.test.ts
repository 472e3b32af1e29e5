import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ingestFolder } from './index.ts';

const root = mkdtempSync(join(tmpdir(), 'dossier-ingest-folder-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('examples/ingest-folder', () => {
  it('ingests a folder with the library alone and finds the file that answers the query first', async () => {
    const folder = join(root, 'notes');
    mkdirSync(folder);
    writeFileSync(join(folder, 'tides.md'), '# Tides\n\nThe moon pulls the ocean, which makes tides twice a day.\n');
    writeFileSync(join(folder, 'bread.md'), '# Bread\n\nYeast makes dough rise before baking.\n');
    writeFileSync(join(folder, 'notes.txt'), 'Shopping: flour, salt, yeast.\n');
    const lines: string[] = [];
    const hits = await ingestFolder({
      folder,
      query: 'why does the ocean have tides',
      dataDir: join(root, 'data'),
      embeddingModel: 'builtin:hash-128',
      print: (l) => lines.push(l),
    });
    expect(hits[0]).toMatchObject({ filename: 'tides.md', section: 'Tides' });
    expect(lines[0]).toMatch(/embedding model: builtin:hash-128/);
    expect(lines.filter((l) => l.startsWith('ready '))).toHaveLength(3);
  });
});
