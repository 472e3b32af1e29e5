/** Path of the MCP endpoint on the server (the resource OAuth tokens are issued for). */
export const MCP_PATH = '/mcp';
