/** Text put before queries and documents, for embedding models trained with asymmetric prompts. */
export interface EmbeddingPrompts {
  query: string;
  document: string;
}

const BGE_QUERY = 'Represent this sentence for searching relevant passages: ';

/**
 * Prompts from each model family's card: BGE v1.5 English (query instruction only; bge-m3 needs none),
 * E5 (`query: ` / `passage: `), nomic-embed-text (`search_query: ` / `search_document: `), mxbai-embed-large
 * (the BGE-style query instruction). Matched on whole words of the id, case-insensitively.
 */
export function promptsFor(model: string): EmbeddingPrompts {
  const id = model.toLowerCase();
  if (/\be5\b/.test(id)) return { query: 'query: ', document: 'passage: ' };
  if (/\bnomic-embed/.test(id)) return { query: 'search_query: ', document: 'search_document: ' };
  if (/\bbge-m3\b/.test(id)) return { query: '', document: '' };
  if (/\bbge\b/.test(id) || /\bmxbai-embed-large\b/.test(id)) return { query: BGE_QUERY, document: '' };
  return { query: '', document: '' };
}
