import { faithfulness } from '../evaluation/faithfulness.ts';
import { type Access, requireCollection } from '../access.ts';
import type { ContextPart, DossierContext } from '../context.ts';
import { DossierError, isDossierError, notFound } from '../domain/errors.ts';
import type { Collection, ResearchSessionRecord } from '../domain/types.ts';
import type { ResearchInput } from '../schemas.ts';
import type { SearchService } from '../search/query.ts';
import { isUuid } from '../util/ids.ts';
import type { ResearchAnswer, ResearchEvent, ResearchProgress, ResearchRunEvent, ResearchSession } from './events.ts';
import { planResearch } from './plan.ts';
import { DEFAULT_RESEARCH_SETTINGS, type ResearchSettings, researchRun } from './run.ts';
import type { ResearchService } from '../api/research.ts';

export { DEFAULT_RESEARCH_SETTINGS, type ResearchSettings } from './run.ts';

/** Research history kept visible per collection (spec: Limits, research list). */
export const RESEARCH_HISTORY_LIMIT = 50;

/** A session as the API shows it, with its faithfulness heuristic (issue 38) from the answer and its cited sources. */
const sessionView = ({ collectionId: _c, ...view }: ResearchSessionRecord): ResearchSession => ({
  ...view,
  faithfulness: faithfulness(
    view.response,
    view.sources.flatMap((s) => (s.marker ? [{ marker: s.marker, content: s.content }] : [])),
  ),
});

/** Present only when there is something to report, so a run with honest citations has the spec's `done` shape. */
const unresolvedField = (unresolved: string[]) => (unresolved.length ? { unresolvedCitations: unresolved } : {});

/** Run events as the stream shows them; a failure escaping the run becomes a last `error` event, never a throw. */
async function* publicEvents(ctx: ContextPart<'log'>, run: AsyncIterable<ResearchRunEvent>): AsyncGenerator<ResearchEvent | ResearchProgress, void, undefined> {
  try {
    for await (const ev of run) {
      if (ev.type === 'error') yield { type: 'error', message: ev.message, code: ev.code };
      else if (ev.type === 'done') yield { type: 'done', sessionId: ev.sessionId, sources: ev.sources, ...unresolvedField(ev.unresolvedCitations) };
      else yield ev;
    }
  } catch (err) {
    ctx.log.error('research run failed', { error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    const known = isDossierError(err) && err.code !== 'internal';
    yield { type: 'error', message: known ? err.message : 'Research failed with an internal error', code: known ? err.code : 'internal' };
  }
}

/** Research: cited answers streamed or buffered, and the collection's saved sessions. */
export function researchService(ctx: DossierContext, search: SearchService, settings: ResearchSettings = DEFAULT_RESEARCH_SETTINGS): ResearchService {
  /** The caller's collection (owner only) and the session when it belongs to it; 404 otherwise. */
  async function sessionOf(access: Access, collectionId: string, sessionId: string): Promise<{ c: Collection; s: ResearchSessionRecord }> {
    const c = await requireCollection(ctx.store, access, collectionId, 'write');
    const s = isUuid(sessionId) ? await ctx.store.getResearchSession(sessionId) : null;
    if (!s || s.collectionId !== c.id) throw notFound('Research session');
    return { c, s };
  }

  return {
    /**
     * Start a run. Access, validation and model resolution happen before the promise resolves (they reject
     * it: the HTTP status is sent before the stream opens); later failures arrive as one last `error` event.
     * Aborting `signal` (client disconnect) cancels the provider call; the iterable then ends with no event.
     * `progress` items are not events of the stream: they say what the run waits on (keep-alive comments).
     */
    async run(access: Access, collectionId: string, raw: ResearchInput, signal?: AbortSignal): Promise<AsyncIterable<ResearchEvent | ResearchProgress>> {
      const plan = await planResearch(ctx, access, collectionId, raw);
      return publicEvents(ctx, researchRun(ctx, search, plan, settings, signal));
    },
    /** Run to the end and return the whole answer; a failed run throws its error (e.g. timeout, provider_error). */
    async runSync(access: Access, collectionId: string, raw: ResearchInput, signal?: AbortSignal): Promise<ResearchAnswer> {
      const plan = await planResearch(ctx, access, collectionId, raw);
      for await (const ev of researchRun(ctx, search, plan, settings, signal)) {
        if (ev.type === 'error') {
          const err = new DossierError(ev.code, ev.message);
          err.logged = true; // researchRun logged it
          throw err;
        }
        if (ev.type === 'done') return { answer: ev.answer, sessionId: ev.sessionId, sources: ev.sources, ...unresolvedField(ev.unresolvedCitations) };
      }
      throw new DossierError('unavailable', 'Research was cancelled before it finished');
    },
    /** The newest sessions of a collection, newest first. */
    async list(access: Access, collectionId: string): Promise<ResearchSession[]> {
      const c = await requireCollection(ctx.store, access, collectionId, 'write');
      return (await ctx.store.listResearchSessions(c.id, RESEARCH_HISTORY_LIMIT)).map(sessionView);
    },
    async get(access: Access, collectionId: string, sessionId: string): Promise<ResearchSession> {
      return sessionView((await sessionOf(access, collectionId, sessionId)).s);
    },
    async remove(access: Access, collectionId: string, sessionId: string): Promise<void> {
      const { s } = await sessionOf(access, collectionId, sessionId);
      await ctx.store.deleteResearchSession(s.id);
    },
  };
}

export type { ResearchService };
