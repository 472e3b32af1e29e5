/**
 * The tools' wire helpers without the tool table: the API error text and the SSE reader. The CLI's client imports
 * this subpath, so commands other than `dossier mcp` (and `--help`) never load the MCP SDK or zod.
 */
export { errorMessage, type FetchLike, fetchToolApi, type ToolApi, type ToolRequest } from './api.ts';
export { sseMessages } from './sse.ts';
