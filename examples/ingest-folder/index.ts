/**
 * Ingest every file of a folder into an embedded Dossier and search it, with no server (library only):
 *
 *   node --import tsx examples/ingest-folder/index.ts <folder> "<query>" [--data-dir <dir>] [--model <id>]
 *
 * Without --data-dir the data lives in a temporary directory that is removed at the end, so nothing is left
 * behind in the current directory (issue 12); with --data-dir it is kept there for a later run. `--model` picks
 * the embedding model of the collection (default: the server's default; `builtin:hash-256` needs no download).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createDossier } from '@dossier/adapters';

export interface IngestFolderOptions {
  folder: string;
  query: string;
  /** Keep the data here; default: a temporary directory removed at the end. */
  dataDir?: string;
  /** Embedding model of the collection. */
  embeddingModel?: string;
  /** Where the report goes (default: stdout). */
  print?: (line: string) => void;
}

/** One search hit as the example reports it. */
export interface FolderHit {
  filename: string;
  section: string;
  score: number;
}

/** Ingest the folder's files, print each one's outcome, then search; returns the hits, best first. */
export async function ingestFolder(opts: IngestFolderOptions): Promise<FolderHit[]> {
  const print = opts.print ?? console.log;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'dossier-example-'));
  const dossier = await createDossier({ dataDir, embeddingModel: opts.embeddingModel });
  try {
    const d = await dossier.local();
    const col = await d.collections.create({ name: `folder ${opts.folder}` });
    print(`collection ${col.id} (embedding model: ${col.embeddingModel})`);
    const files = readdirSync(opts.folder).filter((f) => statSync(join(opts.folder, f)).isFile());
    const docs = [];
    for (const f of files) docs.push(await d.documents.add(col.id, { filename: f, bytes: readFileSync(join(opts.folder, f)) }));
    await dossier.idle();
    for (const doc of docs) {
      const now = await d.documents.get(doc.id);
      print(
        `${now.status.padEnd(6)} ${now.filename}${now.errorMessage ? ` — ${now.errorMessage}` : ` (${now.sectionCount} sections, ${now.chunkCount} chunks)`}`,
      );
    }
    const { results } = await d.search.query(col.id, { q: opts.query, limit: 5 });
    print(`\nTop results for "${opts.query}":`);
    for (const r of results)
      print(`\n${r.score.toFixed(3)}  ${r.document.filename} › ${r.section.title}\n  ${r.chunk.content.slice(0, 200).replace(/\s+/g, ' ')}…`);
    return results.map((r) => ({ filename: r.document.filename, section: r.section.title, score: r.score }));
  } finally {
    await dossier.close();
    if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `<folder> "<query>" [--data-dir <dir>] [--model <id>]` */
function parseArgs(argv: string[]): IngestFolderOptions {
  const [folder, query, ...rest] = argv;
  if (!folder || !query) throw new Error('usage: ingest-folder/index.ts <folder> "<query>" [--data-dir <dir>] [--model <id>]');
  const flag = (name: string) => {
    const at = rest.indexOf(name);
    return at >= 0 ? rest[at + 1] : undefined;
  };
  return { folder, query, dataDir: flag('--data-dir'), embeddingModel: flag('--model') };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  ingestFolder(parseArgs(process.argv.slice(2))).catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
