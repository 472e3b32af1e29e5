/**
 * The research group of the public API (`dossier.research`): an agent that searches and reads a collection to
 * answer a question with cited sources, and the sessions it keeps. Every method needs the collection's owner.
 */
import type { Access } from '../access.ts';
import type { ResearchAnswer, ResearchEvent, ResearchProgress, ResearchSession } from '../research/events.ts';
import type { ResearchInput } from '../schemas.ts';

/** `dossier.research`: run the research agent (streamed or to the end) and read or delete its sessions. */
export interface ResearchService {
  /**
   * Start a run. Access, validation and model resolution happen before the promise resolves (they reject
   * it: the HTTP status is sent before the stream opens); later failures arrive as one last `error` event.
   * Aborting `signal` (client disconnect) cancels the provider call; the iterable then ends with no event.
   * `progress` items are not events of the stream: they say what the run waits on (keep-alive comments).
   * @throws {DossierError} `not_found` (collection), `invalid_input`, `not_configured` (no model or provider key).
   * @example
   * for await (const event of await dossier.research.run(access, id, { q: 'What changed in 2024?' })) {
   *   if (event.type === 'chunk') process.stdout.write(event.content);
   * }
   */
  run(access: Access, collectionId: string, raw: ResearchInput, signal?: AbortSignal): Promise<AsyncIterable<ResearchEvent | ResearchProgress>>;
  /**
   * Run to the end and return the whole answer with its sources.
   * @throws {DossierError} as `run`, plus the run's own failure (e.g. `timeout`, `provider_error`), and `unavailable`
   *   when `signal` cancelled it.
   * @example
   * const { answer, sources } = await dossier.research.runSync(access, id, { q: 'Who approves leave?', depth: 'quick' });
   */
  runSync(access: Access, collectionId: string, raw: ResearchInput, signal?: AbortSignal): Promise<ResearchAnswer>;
  /**
   * The newest sessions of a collection, newest first.
   * @throws {DossierError} `not_found` (collection).
   */
  list(access: Access, collectionId: string): Promise<ResearchSession[]>;
  /**
   * One session with its question, answer and sources.
   * @throws {DossierError} `not_found` (collection or session).
   */
  get(access: Access, collectionId: string, sessionId: string): Promise<ResearchSession>;
  /**
   * Delete a session.
   * @throws {DossierError} `not_found`.
   */
  remove(access: Access, collectionId: string, sessionId: string): Promise<void>;
}
