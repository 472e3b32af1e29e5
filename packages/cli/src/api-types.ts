import type { DocumentEvent as CoreDocumentEvent, QueryHit as CoreQueryHit, ResearchEvent, responses } from '@dossier/core';
import { DOCUMENT_STATUSES, TERMINAL_STATUSES } from '@dossier/core/vocabulary';
import type { z } from 'zod';
import type { components, paths } from './api.gen.ts';

/**
 * The shapes of the API answers the CLI reads: generated from the server's OpenAPI document (api.gen.ts, by
 * scripts/generate-api-types.ts), whose schemas are the zod schemas the server types its replies with. Stream
 * events, which the document does not describe field by field, come from core's types and schemas.
 */

type Schemas = components['schemas'];
/** The JSON body of an operation's answer. */
export type JsonAnswer<P extends keyof paths, M extends keyof paths[P], S extends number> = paths[P][M] extends {
  responses: { [K in S]: { content: { 'application/json': infer B } } };
}
  ? B
  : never;

export type Collection = Schemas['Collection'];
export type Document = Schemas['Document'];
export type Section = Schemas['Section'];
export type Chunk = Schemas['Chunk'];
export type QueryHit = Schemas['QueryHit'];
export type ScanHit = JsonAnswer<'/v1/collections/{id}/sections/scan', 'post', 200>['results'][number];
export type ResearchSource = Schemas['ResearchSource'];
export type ProviderKey = Schemas['ProviderKey'];
export type Claim = Schemas['Claim'];
export type Contradiction = Schemas['Contradiction'];
export type ContradictionRun = Schemas['ContradictionRun'];
export type DuplicateGroup = Schemas['DuplicateGroup'];
export type DuplicateRun = Schemas['DuplicateRun'];
export type Source = Schemas['Source'];
export type SourceRun = Schemas['SourceRun'];

/** Events of the research stream (spec: Research stream). */
export type { ResearchEvent };
/** A claim on the claim map (spec: ClaimMapItem), as the claim map stream's `done` event carries it. */
export type ClaimMapItem = z.output<typeof responses.claimMapItem>;
/**
 * A document status event (spec: DocumentEvent). `env` (the collection's sandbox) is optional here: servers before
 * issue 33 do not send it, and a status the CLI reads back after a reconnect has none.
 */
export type DocumentEvent = Omit<CoreDocumentEvent, 'env'> & Partial<Pick<CoreDocumentEvent, 'env'>>;

/** The generated QueryHit and core's are one shape (a compile error here means the document drifted from core). */
export const QUERY_HIT_MATCHES_CORE: [QueryHit] extends [CoreQueryHit] ? ([CoreQueryHit] extends [QueryHit] ? true : never) : never = true;

/** Statuses after which a document no longer changes (spec: the wait endpoint treats these as terminal). */
export const TERMINAL = new Set<string>(TERMINAL_STATUSES);

/** Pipeline order of the statuses, for progress bars and for ignoring stale events. */
export const STATUS_ORDER = DOCUMENT_STATUSES.filter((status) => status !== 'error');

export const statusRank = (status: string): number =>
  status === 'error' ? STATUS_ORDER.length : STATUS_ORDER.indexOf(status as (typeof STATUS_ORDER)[number]);
