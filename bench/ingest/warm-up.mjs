// The start of a library just created, taken out of a throughput figure: its worker threads load their parsers and
// tokenizer in the background (seconds from TypeScript source, under tsx), and a document uploaded meanwhile waits
// for them. Shared by the ingestion benches (copied beside installed-memory.mjs by installed-memory.sh).

/** Documents the warm-up ingests. */
const WARM_UP_DOCUMENTS = 8;

/**
 * Ingest a few of `texts` into a collection of their own until the pipeline is idle; returns how long that took from
 * the call (the library's start, when called right after createDossier), in seconds.
 */
export async function warmUp(dossier, local, texts, embeddingModel) {
  const started = performance.now();
  const collection = await local.collections.create({ name: 'warm-up', ...(embeddingModel ? { embeddingModel } : {}) });
  const encoder = new TextEncoder();
  const uploads = texts
    .slice(0, WARM_UP_DOCUMENTS)
    .map((text, i) => local.documents.upload(collection.id, { filename: `warm-up-${i}.md`, bytes: encoder.encode(text) }));
  await Promise.all(uploads);
  await dossier.idle();
  return (performance.now() - started) / 1000;
}
