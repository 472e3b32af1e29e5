import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_RETRIEVAL, QUERY_EXPANSIONS, type QueryExpansion } from '@dossier/core';

/** The repository root: bench/beir/ is two levels below it. */
export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

/** Default dataset, outside the repository (never copied into it). */
export const DEFAULT_DATASET = resolve(REPO_ROOT, '../shared/eval/beir/scifact');

/** Options shared by the runner and the bare-LanceDB baseline. */
export interface BenchArgs {
  dataset: string;
  limitDocs: number;
  limitQueries: number;
  embeddingModel: string;
  chunkSize: number;
  chunkOverlap: number;
  /** Passage hits asked of the engine per query; enough to rank 100 documents for recall@100. */
  hits: number;
  batchSize: number;
  /** Add the whole corpus before waiting for the pipeline, instead of draining it after every batch. */
  allAtOnce: boolean;
  concurrency: number;
  out: string | null;
  keep: boolean;
  /** Lexical query expansion of the retrieval settings (`none` or `rm3`). */
  queryExpansion: QueryExpansion;
}

const USAGE = `usage: run.ts [beir-folder] [--limit-docs N] [--limit-queries N] [--embedding-model M]
       [--chunk-size N] [--chunk-overlap N] [--hits N] [--batch N] [--all-at-once] [--concurrency N] [--out FILE] [--keep] [--query-expansion none|rm3]`;

function positiveInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer, got ${value}\n${USAGE}`);
  return n;
}

/** Parse argv; paths resolve against the repository root, as the `bench` script runs from there. */
export function parseBenchArgs(argv: string[]): BenchArgs {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'limit-docs': { type: 'string' },
      'limit-queries': { type: 'string' },
      'embedding-model': { type: 'string' },
      'chunk-size': { type: 'string' },
      'chunk-overlap': { type: 'string' },
      hits: { type: 'string' },
      batch: { type: 'string' },
      concurrency: { type: 'string' },
      out: { type: 'string' },
      keep: { type: 'boolean', default: false },
      'query-expansion': { type: 'string', default: DEFAULT_RETRIEVAL.queryExpansion },
      'all-at-once': { type: 'boolean', default: false },
    },
  });
  const unlimited = Number.POSITIVE_INFINITY;
  return Object.freeze({
    dataset: positionals[0] ? resolve(REPO_ROOT, positionals[0]) : DEFAULT_DATASET,
    limitDocs: positiveInt('limit-docs', values['limit-docs'], unlimited) || unlimited,
    limitQueries: positiveInt('limit-queries', values['limit-queries'], unlimited) || unlimited,
    embeddingModel: values['embedding-model'] ?? 'none',
    chunkSize: positiveInt('chunk-size', values['chunk-size'], 512),
    chunkOverlap: positiveInt('chunk-overlap', values['chunk-overlap'], 64),
    hits: positiveInt('hits', values.hits, 200),
    batchSize: positiveInt('batch', values.batch, 50) || 1,
    allAtOnce: values['all-at-once'] ?? false,
    concurrency: positiveInt('concurrency', values.concurrency, 2),
    out: values.out === undefined ? null : resolve(REPO_ROOT, values.out),
    keep: values.keep ?? false,
    queryExpansion: queryExpansion(values['query-expansion']),
  });
}

function queryExpansion(value: string | undefined): QueryExpansion {
  const v = value ?? DEFAULT_RETRIEVAL.queryExpansion ?? 'none';
  if (!(QUERY_EXPANSIONS as readonly string[]).includes(v))
    throw new Error(`--query-expansion must be one of ${QUERY_EXPANSIONS.join(', ')}, got ${v}\n${USAGE}`);
  return v as QueryExpansion;
}
