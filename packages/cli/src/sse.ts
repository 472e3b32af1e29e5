// The SSE reader is shared with the MCP tools (packages/mcp), which read the research and claim-map streams too.
export { sseMessages } from '@dossier/mcp/wire';
