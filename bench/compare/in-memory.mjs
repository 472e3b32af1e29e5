// MiniSearch and Orama in their recommended English set-ups, shared by the build phase (phase.mjs) and the cold
// start (cold.mjs, plain node): MiniSearch with a Porter stemmer on its default tokenizer, Orama with its English
// stemmer and English stop words (its other defaults kept: threshold 0, every query term must match).

/** The document's fields: BEIR title and text. */
const fields = ['title', 'text'];

/** MiniSearch over title and text, terms lower-cased and Porter-stemmed (stemmer, the package its docs point to). */
export async function createMiniSearch() {
  const [{ default: MiniSearch }, { stemmer }] = await Promise.all([import('minisearch'), import('stemmer')]);
  const options = { fields, idField: 'id', processTerm: (term) => stemmer(term.toLowerCase()) };
  let index = new MiniSearch(options);
  return {
    addAll: async (docs) => index.addAll(docs),
    save: async () => JSON.stringify(index),
    load: async (json) => {
      index = MiniSearch.loadJSON(json, options);
    },
    search: (q, limit) =>
      index
        .search(q)
        .slice(0, limit)
        .map((r) => ({ docId: String(r.id), score: r.score })),
  };
}

/** Orama over title and text with stemming and the English stop words of @orama/stopwords. */
export async function createOrama() {
  const [orama, { stopwords }] = await Promise.all([import('@orama/orama'), import('@orama/stopwords/english')]);
  const make = () =>
    orama.create({
      schema: { beirId: 'string', title: 'string', text: 'string' },
      components: { tokenizer: { language: 'english', stemming: true, stopWords: stopwords } },
    });
  let db = make();
  return {
    addAll: async (docs) => {
      await orama.insertMultiple(
        db,
        docs.map((d) => ({ beirId: d.id, title: d.title, text: d.text })),
        500,
      );
    },
    save: async () => JSON.stringify(await orama.save(db)),
    load: async (json) => {
      db = make();
      await orama.load(db, JSON.parse(json));
    },
    search: async (q, limit) => {
      const { hits } = await orama.search(db, { term: q, properties: fields, limit });
      return hits.map((h) => ({ docId: String(h.document.beirId), score: h.score }));
    },
  };
}
