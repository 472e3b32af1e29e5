import { CONTRADICTION_SEVERITIES, CONTRADICTION_STATUSES } from '@dossier/core/vocabulary';
import { z } from 'zod';
import { collectionId, defineTool, done, objects, READ, ToolError, type ToolContext, UPDATE, WRITE } from './define.ts';
import { sseMessages } from './sse.ts';

/** What a caller may do with a contradiction: apply its suggested instruction, or dismiss it. */
const ACTIONS = ['apply', 'dismiss'] as const;
const importance = z.number().int().min(1).max(5).optional().describe('Only claims of at least this importance, 1 (minor) to 5 (central); default 1');

/** Every claim of a collection, from the claim map's stream (its `done` event carries them). */
async function claimMap(ctx: ToolContext, id: string): Promise<{ importance: number }[]> {
  const res = await ctx.api.send('GET', `/collections/${id}/claims/map`, { headers: { accept: 'text/event-stream' }, signal: ctx.signal, timeoutMs: null });
  for await (const message of sseMessages(res.body as AsyncIterable<Uint8Array>)) {
    const event = message as { type: string; claims?: { importance: number }[]; message?: string };
    if (event.type === 'done') return event.claims ?? [];
    if (event.type === 'error') throw new ToolError(`listing claims failed: ${event.message}`);
  }
  throw new ToolError('the claim stream ended before its done event (the server may have restarted)');
}

/** Claims of one document, or every claim of a collection (from its claim map). */
async function listClaims(args: { collectionId?: string; documentId?: string; minImportance?: number }, ctx: ToolContext) {
  const minImportance = args.minImportance ?? 1;
  if (args.documentId)
    return ctx.api.json<Record<string, unknown>>('GET', `/documents/${args.documentId}/claims`, { query: { minImportance }, signal: ctx.signal });
  if (!args.collectionId) throw new ToolError('give collectionId (claims of the whole collection) or documentId (claims of one document)');
  const claims = await claimMap(ctx, args.collectionId);
  return { claims: claims.filter((claim) => claim.importance >= minImportance) };
}

/** Claims, contradictions and the recompute operations. */
export const CLAIM_TOOLS = [
  defineTool({
    name: 'svc_list_claims',
    title: 'List claims',
    annotations: READ,
    scope: 'svc:read',
    description:
      'Factual claims extracted from the documents (each with importance 1 to 5, its section and, when found, the verbatim source passage). Give collectionId for the whole collection or documentId for one document.',
    input: {
      collectionId: collectionId.optional(),
      documentId: z.string().min(1).optional().describe('Only the claims of this document'),
      minImportance: importance,
    },
    output: { claims: objects('Claims with importance, document, section and source passage') },
    run: (args, ctx) => listClaims(args, ctx),
  }),
  defineTool({
    name: 'svc_detect_contradictions',
    title: 'Detect contradictions',
    annotations: WRITE,
    scope: 'svc:full',
    description:
      'Start an asynchronous run that compares the claims of the collection and records contradictions between them. Follow it with svc_get_contradiction_run, then svc_list_contradictions. Needs a model provider.',
    input: { collectionId },
    output: { runId: z.string(), status: z.string() },
    run: ({ collectionId: id }, ctx) => ctx.api.json('POST', `/collections/${id}/contradictions/detect`, { signal: ctx.signal }),
  }),
  defineTool({
    name: 'svc_get_contradiction_run',
    title: 'Latest contradiction run',
    annotations: READ,
    scope: 'svc:read',
    description: 'Status and counts of the latest contradiction run of the collection (queued, running, completed or failed).',
    input: { collectionId },
    output: { status: z.string() },
    run: ({ collectionId: id }, ctx) => ctx.api.json('GET', `/collections/${id}/contradictions/runs/latest`, { signal: ctx.signal }),
  }),
  defineTool({
    name: 'svc_list_contradictions',
    title: 'List contradictions',
    annotations: READ,
    scope: 'svc:read',
    description: 'Contradictions between claims, with severity, explanation, the claims involved and a suggested instruction for research answers.',
    input: {
      collectionId,
      status: z.enum(CONTRADICTION_STATUSES).optional().describe('Which contradictions (default active)'),
      severity: z.enum(CONTRADICTION_SEVERITIES).optional().describe('Only this severity'),
      documentId: z.string().min(1).optional().describe('Only contradictions touching this document'),
      limit: z.number().int().min(1).max(100).optional().describe('At most this many (1 to 100, default 20)'),
    },
    output: { total: z.number().int(), items: objects('Contradictions') },
    run: ({ collectionId: id, ...query }, ctx) => ctx.api.json('GET', `/collections/${id}/contradictions`, { query, signal: ctx.signal }),
  }),
  defineTool({
    name: 'svc_resolve_contradiction',
    title: 'Apply or dismiss a contradiction',
    annotations: UPDATE,
    scope: 'svc:full',
    description:
      "apply: append the suggested (or given) instruction to the collection's research instructions; dismiss: mark the contradiction as not a real conflict.",
    input: {
      collectionId,
      contradictionId: z.string().min(1).describe('Contradiction ID (from svc_list_contradictions)'),
      action: z.enum(ACTIONS).describe("apply: add the instruction to the collection's research instructions; dismiss: not a real conflict"),
      instruction: z.string().min(1).max(4000).optional().describe('apply only: use this instruction instead of the suggested one'),
    },
    output: { action: z.enum(ACTIONS), contradictionId: z.string() },
    run: ({ collectionId: id, contradictionId, action, instruction }, ctx) => {
      const path = `/collections/${id}/contradictions/${contradictionId}`;
      const result = { action, contradictionId };
      return action === 'apply'
        ? done(ctx, 'POST', `${path}/apply-instruction`, result, instruction === undefined ? {} : { instruction })
        : done(ctx, 'PATCH', path, result, { status: 'dismissed' });
    },
  }),
  defineTool({
    name: 'svc_recompute_summaries',
    title: 'Re-run section summaries',
    annotations: WRITE,
    scope: 'svc:full',
    description:
      'Reset the section summaries of the collection and summarize every ready document again with the model (when summarization is on and a provider is configured).',
    input: { collectionId },
    output: { enqueued: z.number().int().describe('Documents queued') },
    run: ({ collectionId: id }, ctx) => ctx.api.json('POST', `/collections/${id}/recompute/summaries`, { signal: ctx.signal }),
  }),
  defineTool({
    name: 'svc_recompute_captions',
    title: 'Re-run image and table captions',
    annotations: WRITE,
    scope: 'svc:full',
    description:
      'Reset image and table captions of the collection and caption every ready document again (when captioning is on and a provider is configured).',
    input: { collectionId },
    output: { enqueued: z.number().int().describe('Documents queued') },
    run: ({ collectionId: id }, ctx) => ctx.api.json('POST', `/collections/${id}/recompute/captions`, { signal: ctx.signal }),
  }),
  defineTool({
    name: 'svc_recompute_claims',
    title: 'Re-extract claims',
    annotations: WRITE,
    scope: 'svc:full',
    description: 'Delete the claims of the collection and extract them again from every ready document (when a model provider is configured).',
    input: { collectionId },
    output: { recomputing: z.boolean(), collectionId: z.string() },
    run: ({ collectionId: id }, ctx) => done(ctx, 'POST', `/collections/${id}/recompute/claims`, { recomputing: true, collectionId: id }),
  }),
];
