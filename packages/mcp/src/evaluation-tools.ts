import { z } from 'zod';
import { collectionId, defineTool, objects, READ } from './define.ts';

const runId = z.string().min(1).max(100).describe('Evaluation run ID (from svc_list_evaluations)');

/**
 * Read-only tools for evaluation results (issue 38; docs/evaluation.md): runs of a collection's golden sets, one run
 * with its per-query results, and two runs compared. Beyond the spec's tool table: listed in EXTENSION_TOOL_NAMES.
 */
export const EVALUATION_TOOLS = [
  defineTool({
    name: 'svc_list_evaluations',
    title: 'List evaluation runs',
    annotations: READ,
    scope: 'svc:read',
    description:
      "Evaluation runs of a collection, newest first: each golden set run's settings and metrics (nDCG@10, recall@k, MRR, latency percentiles). " +
      'Use svc_get_evaluation for the per-query results of one run.',
    input: { collectionId, limit: z.number().int().min(1).max(100).optional().describe('Number of runs (1 to 100, default 20)') },
    output: { runs: objects('Runs with their settings and metrics, newest first') },
    run: async ({ collectionId: id, limit }, ctx) => ({
      runs: await ctx.api.json<unknown[]>('GET', `/collections/${id}/evaluations`, { query: { limit }, signal: ctx.signal }),
    }),
  }),
  defineTool({
    name: 'svc_get_evaluation',
    title: 'Get an evaluation run',
    annotations: READ,
    scope: 'svc:read',
    description:
      'One evaluation run with its metrics and per-query results: for each golden query, the expected targets with the rank they came back at (null: missed) and what came back instead.',
    input: { collectionId, runId },
    output: {
      id: z.string().describe('Run ID'),
      status: z.string().describe('completed, or running/failed for a run tried on a shadow copy (chunking or embedding model)'),
      metrics: z.looseObject({}).nullable().describe('nDCG@10, recall, MRR, latency (null until completed)'),
      perQuery: objects('Per-query results'),
    },
    run: ({ collectionId: id, runId: run }, ctx) => ctx.api.json('GET', `/collections/${id}/evaluations/${encodeURIComponent(run)}`, { signal: ctx.signal }),
  }),
  defineTool({
    name: 'svc_compare_evaluations',
    title: 'Compare two evaluation runs',
    annotations: READ,
    scope: 'svc:read',
    description: 'Two evaluation runs side by side: metric deltas (candidate minus base) and the queries whose nDCG@10 changed, worst change first.',
    input: { collectionId, base: runId.describe('The run to compare against'), candidate: runId.describe('The run compared with the base') },
    output: { delta: z.looseObject({}).describe('candidate − base of nDCG@10, recall, MRR, p50, p95'), queries: objects('Queries whose nDCG@10 changed') },
    run: ({ collectionId: id, base, candidate }, ctx) =>
      ctx.api.json('GET', `/collections/${id}/evaluations/compare`, { query: { base, candidate }, signal: ctx.signal }),
  }),
];
