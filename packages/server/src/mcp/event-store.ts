import type { EventId, EventStore, StreamId } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Events a session keeps for replay; older ones are dropped (a client that fell this far behind starts over). */
export const MCP_REPLAY_EVENTS = 500;

/**
 * The messages of one MCP session's SSE streams, kept so a client that lost a stream resumes it with
 * `Last-Event-ID` (Streamable HTTP resumability). In memory and bounded: the newest MCP_REPLAY_EVENTS only.
 */
export class SessionEventStore implements EventStore {
  private readonly events = new Map<EventId, { streamId: StreamId; message: JSONRPCMessage }>();
  private sequence = 0;

  constructor(private readonly capacity = MCP_REPLAY_EVENTS) {}

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const eventId = `${streamId}.${++this.sequence}`;
    this.events.set(eventId, { streamId, message });
    if (this.events.size > this.capacity) this.events.delete(this.events.keys().next().value as EventId);
    return eventId;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.events.get(eventId)?.streamId;
  }

  /** Send the stream's messages stored after `lastEventId` (priming events, which carry none, are skipped). */
  async replayEventsAfter(lastEventId: EventId, { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> }): Promise<StreamId> {
    const streamId = this.events.get(lastEventId)?.streamId;
    if (streamId === undefined) throw new Error(`event ${lastEventId} is no longer kept`);
    let after = false;
    for (const [eventId, event] of this.events) {
      if (after && event.streamId === streamId && Object.keys(event.message).length > 0) await send(eventId, event.message);
      if (eventId === lastEventId) after = true;
    }
    return streamId;
  }
}
