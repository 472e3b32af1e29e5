import type { Dossier, ScopedDossier } from '@dossier/core';

/** Ingest a few of `texts` into their own collection until the pipeline is idle; seconds that took. */
export function warmUp(dossier: Dossier, local: ScopedDossier, texts: string[], embeddingModel?: string): Promise<number>;
