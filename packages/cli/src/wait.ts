import type { Document } from './api-types.ts';
import type { ApiClient } from './client.ts';

/** Long-poll GET /documents/:id/wait until the document is ready or in error; the server gives up after 5 minutes (408), so ask again. */
export async function waitForDocument(api: ApiClient, id: string, signal: AbortSignal): Promise<Document> {
  for (;;) {
    const res = await api.send('GET', `/documents/${id}/wait`, {
      signal,
      timeoutMs: null,
      allow: [408],
      notFoundHint: 'run `dossier docs list` to see the documents of the current collection',
    });
    if (res.status === 200) return (await res.json()) as Document;
    await res.body?.cancel();
  }
}
