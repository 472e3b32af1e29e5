import { randomUUID } from 'node:crypto';
import type { Principal } from '@dossier/core';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SessionEventStore } from './event-store.ts';

/** A session unused this long is closed (its client starts a new one on the 404 it then gets). */
export const MCP_SESSION_IDLE_MS = 30 * 60_000;
/** Sessions one caller (key, or OAuth client of an account) may hold; opening more closes the least recently used. */
export const MCP_SESSIONS_PER_CALLER = 50;
/** Reconnection delay the SSE streams suggest to clients (the `retry:` field), for resumption after a dropped stream. */
export const MCP_RETRY_MS = 2_000;

/** One MCP session: its transport and server, the caller it belongs to, and the caller's latest principal. */
export interface McpSession {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  /** Who may use the session (a key, or an OAuth client acting for an account). */
  owner: string;
  /** The principal of the latest request: a refreshed token may carry other scopes. */
  principal: Principal;
  lastSeen: number;
}

/** Whose session it is: the same API key, or the same OAuth client for the same account (tokens rotate). */
export function ownerOf(principal: Principal): string {
  if (principal.kind === 'project_key' || principal.kind === 'org_key') return `key:${principal.keyId}`;
  if (principal.kind === 'oauth') return `oauth:${principal.clientId}:${principal.accountId}`;
  if (principal.kind === 'user') return `user:${principal.accountId}`;
  return 'anonymous';
}

/**
 * The MCP sessions of this server node, in memory (a deployment of several nodes routes a session's requests to one
 * node: the `Mcp-Session-Id` header is the sticky key). Sessions close on DELETE, after MCP_SESSION_IDLE_MS unused,
 * or when their caller opens more than MCP_SESSIONS_PER_CALLER.
 */
export function mcpSessions(serverFor: (session: McpSession) => McpServer) {
  const open = new Map<string, McpSession>();
  const close = (session: McpSession) => {
    void session.transport.close().catch(() => undefined);
    void session.server.close().catch(() => undefined);
  };
  const sweep = setInterval(() => {
    for (const session of open.values()) if (Date.now() - session.lastSeen > MCP_SESSION_IDLE_MS) close(session);
  }, 60_000);
  sweep.unref();

  function makeRoom(owner: string): void {
    const held = [...open.values()].filter((session) => session.owner === owner).sort((a, b) => a.lastSeen - b.lastSeen);
    for (const session of held.slice(0, Math.max(0, held.length - MCP_SESSIONS_PER_CALLER + 1))) close(session);
  }

  return {
    /** A new session for `principal`, registered once its initialize request succeeds. */
    async start(principal: Principal): Promise<McpSession> {
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore: new SessionEventStore(),
        retryInterval: MCP_RETRY_MS,
        onsessioninitialized: (id) => {
          makeRoom(session.owner);
          open.set(id, session);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) open.delete(transport.sessionId);
      };
      const session = { transport, owner: ownerOf(principal), principal, lastSeen: Date.now() } as McpSession;
      session.server = serverFor(session);
      await session.server.connect(transport);
      return session;
    },
    /** The session of this id when it belongs to the caller (another caller's session is as unknown as a bad id). */
    find(id: string, principal: Principal): McpSession | null {
      const session = open.get(id);
      if (!session || session.owner !== ownerOf(principal)) return null;
      session.principal = principal;
      session.lastSeen = Date.now();
      return session;
    },
    /** Close a session that never registered (its initialize request failed). */
    discard(session: McpSession): void {
      if (!session.transport.sessionId || !open.has(session.transport.sessionId)) close(session);
    },
    size: () => open.size,
    closeAll(): void {
      clearInterval(sweep);
      for (const session of open.values()) close(session);
    },
  };
}
export type McpSessions = ReturnType<typeof mcpSessions>;
