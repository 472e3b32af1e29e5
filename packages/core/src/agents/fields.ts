import type { CollectionStore } from '../ports/collection-store.ts';
import { AGENT_TOOLS, type AgentToolset } from '../domain/agents.ts';
import { DossierError } from '../domain/errors.ts';

/** Every tool on, then the given switches (omitted keys stay enabled); keys in the spec's order. */
export const fullToolset = (switches: Partial<AgentToolset> = {}): AgentToolset =>
  Object.fromEntries(AGENT_TOOLS.map((tool) => [tool, switches[tool] ?? true])) as AgentToolset;

export const stripUndefined = <T extends object>(value: T): Partial<T> =>
  Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;

/** Allow-listed collections must be live collections of the agent's project (either sandbox). */
export async function checkCollections(store: CollectionStore, projectId: string, ids: string[] | null | undefined): Promise<void> {
  for (const id of ids ?? []) {
    const collection = await store.getCollection(id);
    if (!collection || collection.deletedAt || collection.projectId !== projectId) {
      throw new DossierError('invalid_input', `allowedCollectionIds: collection ${id} is not a collection of this project`);
    }
  }
}
