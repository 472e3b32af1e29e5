import type { DOCUMENT_STATUSES } from '@dossier/core/vocabulary';
import type { QueryClient } from '@tanstack/react-query';

/** A status event of a collection's SSE stream. */
export interface DocumentEvent {
  documentId: string;
  status: (typeof DOCUMENT_STATUSES)[number];
  sectionCount?: number;
}

/** What a cached page of documents holds, as far as a status event changes it (the Document of api.ts fits). */
interface DocumentPage {
  documents: { id: string; status: string; sectionCount?: number | null }[];
}

/** The cached document pages of a collection (every filter and page: their keys start with this). */
export const documentsKey = (collectionId: string) => ['documents', collectionId];

/**
 * Applies a status event to every cached page of the collection's documents, in place. The list is read again when
 * the event names a document no page holds, when a document failed (its reason is in the document), and when a read
 * is under way: that read may have started before this change and would write the old status back over it when it
 * lands, and no later event would mend the row (invalidating cancels it and reads again).
 */
export function applyStatusEvent(queries: QueryClient, collectionId: string, event: DocumentEvent): void {
  const inFlight = queries.isFetching({ queryKey: documentsKey(collectionId) }) > 0;
  let known = false;
  queries.setQueriesData<DocumentPage>({ queryKey: documentsKey(collectionId) }, (old) => {
    if (!old) return old;
    const documents = old.documents.map((d) => {
      if (d.id !== event.documentId) return d;
      known = true;
      return { ...d, status: event.status, sectionCount: event.sectionCount ?? d.sectionCount };
    });
    return { ...old, documents };
  });
  if (!known || event.status === 'error' || inFlight) void queries.invalidateQueries({ queryKey: documentsKey(collectionId) });
  if (event.status === 'ready' || event.status === 'error') {
    void queries.invalidateQueries({ queryKey: ['stats', collectionId] });
    void queries.invalidateQueries({ queryKey: ['tags', collectionId] }); // new uploads may bring new tags
  }
}
