import type { OAuthScope } from '@dossier/core';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ToolApi } from './api.ts';

/** What a tool runs with: the API it wraps, the caller's cancellation, and a way to report progress. */
export interface ToolContext {
  api: ToolApi;
  /** The project new collections go to (SERVICE_PROJECT_ID or config project_id; over HTTP the caller's), when set. */
  projectId: string | null;
  /** Aborted when the client cancels the call (notifications/cancelled) or disconnects. */
  signal: AbortSignal;
  /**
   * Send notifications/progress when the caller asked for it (a progressToken); otherwise nothing. Without `at`
   * the progress value counts the notifications sent (it must only grow).
   */
  progress(message: string, at?: { progress: number; total: number }): Promise<void>;
}

/**
 * One `svc_` tool (spec: Tool-server interface): its schemas and annotations as data, and what it does: a thin call
 * of the /v1 API, so every business rule (validation, access, limits) stays in core and errors read as the API's.
 * `run` returns an object (sent as structuredContent and as JSON text) or a string (sent as text, e.g. Markdown).
 */
export interface ToolDef<Input extends z.ZodRawShape = z.ZodRawShape> {
  name: `svc_${string}`;
  title: string;
  description: string;
  input: Input;
  /** The shape of the structured result (loose objects: the API may add fields). */
  output?: z.ZodRawShape;
  annotations: ToolAnnotations;
  /**
   * The OAuth scope a token needs to call it (spec: `svc:read` searches and reads; `svc:full` also creates, changes,
   * deletes and runs agentic work). A project API key may call every tool.
   */
  scope: OAuthScope;
  run(args: z.output<z.ZodObject<Input>>, ctx: ToolContext): Promise<Record<string, unknown> | string>;
}

/** Type a tool's `run` against its own input schema, then keep it in a table of tools of any input. */
export const defineTool = <Input extends z.ZodRawShape>(def: ToolDef<Input>): ToolDef => def as unknown as ToolDef;

/** A failure of a tool that is not an API answer, reported to the model as an `isError` result. */
export class ToolError extends Error {}

// Annotations (MCP tool annotations): what a client may assume before it calls. Read-only tools are exactly the
// `svc:read` ones (a test holds the two columns together).
export const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Creates something or starts work: calling twice does it twice. */
export const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
/** Sets fields to given values: calling twice leaves the same state. */
export const UPDATE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Removes data for good (a second call finds nothing left to remove). */
export const DELETE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

// Input fields shared by many tools, with descriptions a model can act on.
export const collectionId = z.string().min(1).describe('Collection ID (from svc_list_collections)');
export const documentId = z.string().min(1).describe('Document ID (from svc_list_documents or a search result)');
export const sectionId = z.string().min(1).describe('Section ID (from svc_get_document_sections, svc_scan_sections or a search result)');
const tags = z.array(z.string().min(1).max(200)).max(100);
export const filters = {
  tags: tags.optional().describe('Only documents carrying ALL of these tags'),
  anyTags: tags.optional().describe('Only documents carrying at least ONE of these tags'),
  metadata: z.record(z.string(), z.unknown()).optional().describe('Only documents whose metadata contains all of these key-value pairs'),
};

/** Output fields: a list of API objects, and one API object identified by its id. */
export const objects = (what: string) => z.array(z.looseObject({})).describe(what);
export const withId = (what: string) => ({ id: z.string().describe(`${what} ID`) });

/** The filter fields of a tool's arguments, as the API's request body takes them (absent ones left out). */
export function filterBody(args: { tags?: string[]; anyTags?: string[]; metadata?: Record<string, unknown> }): Record<string, unknown> {
  return Object.fromEntries(Object.entries({ tags: args.tags, anyTags: args.anyTags, metadata: args.metadata }).filter(([, value]) => value !== undefined));
}

/** A request that answers 204 (or a small body) as a result that says what happened. */
export async function done(ctx: ToolContext, method: string, path: string, result: Record<string, unknown>, json?: unknown): Promise<Record<string, unknown>> {
  const body = await ctx.api.json<Record<string, unknown> | undefined>(method, path, { json, signal: ctx.signal });
  return { ...result, ...body };
}
