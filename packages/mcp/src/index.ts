export { errorMessage, type FetchLike, fetchToolApi, type ToolApi, type ToolRequest } from './api.ts';
export type { ToolContext, ToolDef } from './define.ts';
export { createMcpServer, EXTENSION_TOOL_NAMES, type McpBackend, TOOLS, toolsOfScope } from './server.ts';
export { sseMessages } from './sse.ts';
