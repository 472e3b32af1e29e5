/**
 * A near-duplicate evaluation set built at bench time from SciFact abstracts (../shared/eval, never copied into
 * the repository). Each source abstract gets variants of what people really do with text:
 *
 * - copies across formats: exact, reformatted plain text, HTML, PDF, DOCX, Markdown with syntax (the binary
 *   formats go through the real converters);
 * - containment: truncations, short excerpts, contiguous partial copies of 20, 50 and 80 % of the source;
 * - edited copies: words substituted (5 %), the whole text edited at 5, 15 and 25 % of its words (substitutions,
 *   insertions, deletions, typos, case and punctuation) with neighbouring sentences swapped, and a passage of
 *   about half the source edited and pasted between sentences of the writer's own text (each pasted variant with
 *   another writer's text, from abstracts outside the set);
 * - negatives: abstracts on the same topic (judged relevant to the same claim), and paraphrases of the source
 *   of two strengths (half or 70 % of the words replaced) and its words shuffled within each sentence;
 * - heavy rewrites (30 % of the words replaced) are reported but counted neither way.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { editWords, reorderSentences, sentenceSpan, sentences, shuffleWithinSentences, substituteWords } from './edits.ts';
import { docxOf, htmlOf, markdownOf, pdfOf } from './formats.ts';

export const POSITIVE_KINDS = [
  'exact',
  'reformatted',
  'html',
  'pdf',
  'docx',
  'markdown',
  'truncation',
  'excerpt',
  'partial_20',
  'partial_50',
  'partial_80',
  'light_rewrite',
  'edited_5',
  'edited_15',
  'edited_25',
  'pasted_5',
  'pasted_15',
] as const;
export const NEGATIVE_KINDS = ['same_topic', 'paraphrase_50', 'paraphrase_70', 'shuffled_words'] as const;
export type Kind = 'source' | (typeof POSITIVE_KINDS)[number] | (typeof NEGATIVE_KINDS)[number] | 'heavy_rewrite';

export interface EvalDoc {
  name: string;
  kind: Kind;
  /** The source this document was derived from (null for sources and same-topic abstracts). */
  sourceOf: string | null;
  /** The file as uploaded: Markdown or HTML text, or PDF/DOCX bytes. */
  content: string | Uint8Array;
  filename: string;
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

/** Is a pair of evaluation documents a true near-duplicate pair (true), a negative (false), or neither (null)? */
export function pairTruth(a: EvalDoc, b: EvalDoc): boolean | null {
  if (a.kind === 'heavy_rewrite' || b.kind === 'heavy_rewrite') return (a.sourceOf ?? a.name) === (b.sourceOf ?? b.name) ? null : false;
  const negative = (doc: EvalDoc) => (NEGATIVE_KINDS as readonly string[]).includes(doc.kind);
  if (negative(a) || negative(b)) return false;
  return (a.sourceOf ?? a.name) === (b.sourceOf ?? b.name);
}

function reformat(title: string, text: string): string {
  const wrapped = text.replace(/(.{1,72})(\s|$)/g, '$1\n');
  return `${title.toUpperCase()}\n\n${wrapped}\n\nPage 1 of 1 — printed copy`;
}

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
    for (const line of readFileSync(join(evalDir, 'beir', 'scifact', 'qrels', file), 'utf8')
      .split('\n')
      .slice(1)) {
      const [query, doc] = line.split('\t');
      if (query && doc) byQuery.set(query, [...(byQuery.get(query) ?? []), doc]);
    }
  }
  return [...byQuery.values()].filter((docs) => docs.length >= 2).map((docs) => [docs[0]!, docs[1]!]);
}

/** A passage of about half the source, edited and reordered, between sentences of someone else's text. */
function pasted(text: string, ownText: string, rate: number, rand: () => number): string {
  const own = sentences(ownText);
  const passage = reorderSentences(sentences(sentenceSpan(text, 0.5, rand)), rand).map((sentence) => editWords(sentence, rate, rand));
  return [...own.slice(0, 2), ...passage, ...own.slice(2, 3)].join(' ');
}

/** Every variant of one source abstract. */
function variantsOf(id: string, title: string, text: string, ownTexts: [string, string], rand: () => number): EvalDoc[] {
  const name = `src-${id}`;
  const md = (kind: Kind, content: string): EvalDoc => ({ name: `${kind}-${id}`, kind, sourceOf: name, content, filename: `${kind}-${id}.md` });
  const edited = (rate: number) =>
    reorderSentences(sentences(text), rand)
      .map((sentence) => editWords(sentence, rate, rand))
      .join(' ');
  const body = sentences(text);
  const excerpt = body.slice(Math.floor(body.length / 3), Math.floor(body.length / 3) + 3).join(' ');
  return [
    { name, kind: 'source', sourceOf: null, content: `# ${title}\n\n${text}\n`, filename: `${name}.md` },
    md('exact', `# ${title}\n\n${text}\n`),
    md('reformatted', reformat(title, text)),
    { name: `html-${id}`, kind: 'html', sourceOf: name, content: htmlOf(title, text), filename: `html-${id}.html` },
    { name: `pdf-${id}`, kind: 'pdf', sourceOf: name, content: pdfOf(title, text), filename: `pdf-${id}.pdf` },
    { name: `docx-${id}`, kind: 'docx', sourceOf: name, content: docxOf(title, text), filename: `docx-${id}.docx` },
    md('markdown', markdownOf(title, text)),
    md('truncation', `# ${title}\n\n${text.slice(0, Math.floor(text.length * 0.6))}\n`),
    md('excerpt', `# Excerpt\n\n${excerpt}\n`),
    md('partial_20', sentenceSpan(text, 0.2, rand)),
    md('partial_50', sentenceSpan(text, 0.5, rand)),
    md('partial_80', sentenceSpan(text, 0.8, rand)),
    md('light_rewrite', `# ${title}\n\n${substituteWords(text, 0.05, rand)}\n`),
    md('edited_5', edited(0.05)),
    md('edited_15', edited(0.15)),
    md('edited_25', edited(0.25)),
    md('pasted_5', pasted(text, ownTexts[0], 0.05, rand)),
    md('pasted_15', pasted(text, ownTexts[1], 0.15, rand)),
    md('heavy_rewrite', `# ${title}\n\n${substituteWords(text, 0.3, rand)}\n`),
    md('paraphrase_50', reorderSentences(sentences(substituteWords(text, 0.5, rand)), rand).join(' ')),
    md('paraphrase_70', reorderSentences(sentences(substituteWords(text, 0.7, rand)), rand).join(' ')),
    md('shuffled_words', shuffleWithinSentences(text, rand)),
  ];
}

/** The evaluation documents: `sources` abstracts with one variant of each kind, plus same-topic negatives. */
export async function evaluationSet(evalDir: string, sources: number): Promise<EvalDoc[]> {
  const rand = random(42);
  const abstracts = new Map<string, { title: string; text: string }>();
  for await (const row of corpus(evalDir)) abstracts.set(row.id, row);
  const topicPairs = sameTopicPairs(evalDir).slice(0, sources);
  const topical = new Set(topicPairs.flat());
  const long = [...abstracts.entries()].filter(([id, a]) => a.text.split(/\s+/).length >= 180 && !topical.has(id));
  const chosen = long.slice(0, sources);
  const donors = long.slice(sources, 3 * sources).map(([, abstract]) => abstract.text);
  const ownTexts = (index: number): [string, string] => [
    donors[(2 * index) % Math.max(1, donors.length)] ?? '',
    donors[(2 * index + 1) % Math.max(1, donors.length)] ?? '',
  ];
  const docs = chosen.flatMap(([id, { title, text }], index) => variantsOf(id, title, text, ownTexts(index), rand));
  const used = new Set<string>();
  for (const [left, right] of topicPairs) {
    for (const id of [left, right]) {
      const abstract = abstracts.get(id);
      if (!abstract || used.has(id)) continue;
      used.add(id);
      docs.push({ name: `topic-${id}`, kind: 'same_topic', sourceOf: null, content: `# ${abstract.title}\n\n${abstract.text}\n`, filename: `topic-${id}.md` });
    }
  }
  return docs;
}
