import type { BeirDoc } from '../beir/dataset.ts';

/** An in-memory engine of the comparison (see in-memory.mjs). */
export interface InMemoryEngine {
  addAll(docs: BeirDoc[]): Promise<void>;
  /** The index as JSON, to load in another process. */
  save(): Promise<string>;
  load(json: string): Promise<void>;
  search(q: string, limit: number): { docId: string; score: number }[] | Promise<{ docId: string; score: number }[]>;
}

export function createMiniSearch(): Promise<InMemoryEngine>;
export function createOrama(): Promise<InMemoryEngine>;
