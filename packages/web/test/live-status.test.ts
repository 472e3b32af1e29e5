import { QueryClient, QueryObserver } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { applyStatusEvent, type DocumentEvent, documentsKey } from '../src/live-status.ts';

/**
 * The documents table's live status (issue 34) against a real TanStack QueryClient: a status event must win over a
 * list read that started before it and lands after it (CI once saw a row stay "processing" for good that way: the
 * upload's own refresh read the list, the ready event arrived, then the older read landed on top of it).
 */

type Status = DocumentEvent['status'];
type Page = { documents: { id: string; filename: string; status: Status; sectionCount: number }[]; total: number };
const doc = (status: Status) => ({ id: 'd1', filename: 'report.md', status, sectionCount: 0 });

/** A list read the test answers by hand, in the order it chooses. */
function controlledReads() {
  const pending: { status: Status; answer: (page: Page) => void }[] = [];
  let serverStatus: Status = 'processing';
  return {
    setServer: (status: Status) => {
      serverStatus = status;
    },
    /** The read reads the server's status when it starts, and answers when the test says. */
    queryFn: () =>
      new Promise<Page>((answer) => {
        pending.push({ status: serverStatus, answer });
      }),
    answerOldest: () => {
      const read = pending.shift();
      if (!read) throw new Error('no read is pending');
      read.answer({ documents: [doc(read.status)], total: 1 });
    },
    pending: () => pending.length,
  };
}

/** The table on screen: an observer makes the query active (read at once, and again when invalidated). */
function watchTable(queries: QueryClient, queryKey: unknown[], queryFn: () => Promise<Page>): () => void {
  return new QueryObserver(queries, { queryKey, queryFn }).subscribe(() => {});
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('live document status', () => {
  it('keeps an event newer than a list read that was under way when it arrived', async () => {
    const queries = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const reads = controlledReads();
    const key = [...documentsKey('c1'), 'test', '', '', '', 0];
    const unsubscribe = watchTable(queries, key, reads.queryFn);
    reads.answerOldest(); // the table shows the document as processing
    await settle();
    expect(queries.getQueryData<Page>(key)?.documents[0]?.status).toBe('processing');

    void queries.invalidateQueries({ queryKey: documentsKey('c1') }); // the upload's own refresh: reads "processing"
    await settle();
    expect(reads.pending()).toBe(1);
    reads.setServer('ready');
    applyStatusEvent(queries, 'c1', { documentId: 'd1', status: 'ready', sectionCount: 2 });
    expect(queries.getQueryData<Page>(key)?.documents[0]?.status).toBe('ready');

    // The stale read lands, then any read the event started.
    reads.answerOldest();
    await settle();
    while (reads.pending() > 0) reads.answerOldest();
    await settle();
    expect(queries.getQueryData<Page>(key)?.documents[0]?.status).toBe('ready');
    unsubscribe();
    queries.clear();
  });

  it('changes a known row in place without reading the list again when no read is under way', async () => {
    const queries = new QueryClient();
    const reads = controlledReads();
    const key = [...documentsKey('c1'), 'test', '', '', '', 0];
    const unsubscribe = watchTable(queries, key, reads.queryFn);
    reads.answerOldest();
    await settle();
    applyStatusEvent(queries, 'c1', { documentId: 'd1', status: 'ready', sectionCount: 2 });
    await settle();
    expect(reads.pending()).toBe(0);
    expect(queries.getQueryData<Page>(key)?.documents[0]).toMatchObject({ status: 'ready', sectionCount: 2 });
    unsubscribe();
    queries.clear();
  });
});
