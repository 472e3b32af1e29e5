/**
 * A near-duplicate evaluation set built at bench time from SciFact abstracts (../shared/eval, never copied into
 * the repository) and deterministic variants of them: exact copies, reformatted copies, the same text through the
 * HTML converter, truncations, excerpts, light and heavy rewrites, and unrelated abstracts on the same topic
 * (judged relevant to the same claim) as negatives.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export type Kind = 'source' | 'exact' | 'reformatted' | 'html' | 'truncation' | 'excerpt' | 'light_rewrite' | 'heavy_rewrite' | 'same_topic';

export interface EvalDoc {
  name: string;
  kind: Kind;
  /** The source this document was derived from (null for sources and negatives). */
  sourceOf: string | null;
  /** Markdown, or HTML when kind is `html` (ingested as .html). */
  content: string;
}

/** A small deterministic random source (mulberry32). */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sentences = (text: string): string[] => text.split(/(?<=[.!?])\s+(?=[A-Z])/).filter((s) => s.trim());

/** Replace a share of the words with other words of the text (a rewrite that keeps the vocabulary). */
function rewrite(text: string, share: number, rand: () => number): string {
  const words = text.split(/\s+/);
  const pool = ['notably', 'overall', 'however', 'markedly', 'these', 'results', 'further', 'significant', 'patients', 'observed'];
  return words.map((word) => (rand() < share ? pool[Math.floor(rand() * pool.length)]! : word)).join(' ');
}

function reformat(title: string, text: string): string {
  const wrapped = text.replace(/(.{1,72})(\s|$)/g, '$1\n');
  return `${title.toUpperCase()}\n\n${wrapped}\n\nPage 1 of 1 — printed copy`;
}

const html = (title: string, text: string): string =>
  `<!doctype html><html><body><nav><a href="/">Home</a></nav><main><h1>${title}</h1>${sentences(text).map((s) => `<p>${s}</p>`).join('')}</main><footer>© Journal</footer></body></html>`;

async function* corpus(evalDir: string): AsyncGenerator<{ id: string; title: string; text: string }> {
  for await (const line of createInterface({ input: createReadStream(join(evalDir, 'beir', 'scifact', 'corpus.jsonl')) })) {
    if (line.trim()) {
      const row = JSON.parse(line) as { _id: string; title: string; text: string };
      yield { id: String(row._id), title: row.title, text: row.text };
    }
  }
}

/** Pairs of abstracts judged relevant to the same claim: same topic, different documents. */
function sameTopicPairs(evalDir: string): [string, string][] {
  const byQuery = new Map<string, string[]>();
  for (const file of ['train.tsv', 'test.tsv']) {
    for (const line of readFileSync(join(evalDir, 'beir', 'scifact', 'qrels', file), 'utf8').split('\n').slice(1)) {
      const [query, doc] = line.split('\t');
      if (query && doc) byQuery.set(query, [...(byQuery.get(query) ?? []), doc]);
    }
  }
  return [...byQuery.values()].filter((docs) => docs.length >= 2).map((docs) => [docs[0]!, docs[1]!]);
}

/** The evaluation documents: `sources` abstracts with one variant of each kind, plus same-topic negatives. */
export async function evaluationSet(evalDir: string, sources: number): Promise<EvalDoc[]> {
  const rand = random(42);
  const abstracts = new Map<string, { title: string; text: string }>();
  for await (const row of corpus(evalDir)) abstracts.set(row.id, row);
  const docs: EvalDoc[] = [];
  const chosen = [...abstracts.entries()].filter(([, a]) => a.text.split(/\s+/).length >= 180).slice(0, sources);
  for (const [id, { title, text }] of chosen) {
    const name = `src-${id}`;
    const body = sentences(text);
    const excerpt = body.slice(Math.floor(body.length / 3), Math.floor(body.length / 3) + 3).join(' ');
    docs.push(
      { name, kind: 'source', sourceOf: null, content: `# ${title}\n\n${text}\n` },
      { name: `exact-${id}`, kind: 'exact', sourceOf: name, content: `# ${title}\n\n${text}\n` },
      { name: `reformatted-${id}`, kind: 'reformatted', sourceOf: name, content: reformat(title, text) },
      { name: `html-${id}`, kind: 'html', sourceOf: name, content: html(title, text) },
      { name: `truncation-${id}`, kind: 'truncation', sourceOf: name, content: `# ${title}\n\n${text.slice(0, Math.floor(text.length * 0.6))}\n` },
      { name: `excerpt-${id}`, kind: 'excerpt', sourceOf: name, content: `# Excerpt\n\n${excerpt}\n` },
      { name: `light-${id}`, kind: 'light_rewrite', sourceOf: name, content: `# ${title}\n\n${rewrite(text, 0.05, rand)}\n` },
      { name: `heavy-${id}`, kind: 'heavy_rewrite', sourceOf: name, content: `# ${title}\n\n${rewrite(text, 0.3, rand)}\n` },
    );
  }
  const used = new Set(chosen.map(([id]) => id));
  for (const [left, right] of sameTopicPairs(evalDir).slice(0, sources)) {
    for (const id of [left, right]) {
      const abstract = abstracts.get(id);
      if (!abstract || used.has(id)) continue;
      used.add(id);
      docs.push({ name: `topic-${id}`, kind: 'same_topic', sourceOf: null, content: `# ${abstract.title}\n\n${abstract.text}\n` });
    }
  }
  return docs;
}
