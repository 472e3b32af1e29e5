import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { sessionHeaders } from './api.ts';

/**
 * Where a cited passage is (issue 39), as results give it: its characters in the document's Markdown, the pages of
 * the original and boxes on them (PDFs), the sheet and cells (spreadsheets).
 */
export interface Located {
  span?: { start: number; end: number };
  pages?: number[];
  /** Boxes as [x0, y0, x1, y1], fractions of the page's width and height from its top left. */
  regions?: Region[];
  cells?: { sheet: string; range: string }[];
}
type Region = { page: number; box: number[] };

/** A citation as the document page's URL carries it: plain strings, so a link can be shared and reloaded. */
export interface CitationSearch {
  span?: string;
  pages?: string;
  regions?: string;
  cells?: string;
}

const fraction = (value: number): string => String(Math.round(value * 10_000) / 10_000);

/** A passage's location as URL search fields: `span=214-361`, `pages=2`, `regions=2:0.1,0.6,0.8,0.65;…`, `cells=Sheet!A1:D9`. */
export function citationSearch(at: Located): CitationSearch {
  const out: CitationSearch = {};
  if (at.span) out.span = `${at.span.start}-${at.span.end}`;
  if (at.pages?.length) out.pages = at.pages.join(',');
  if (at.regions?.length) out.regions = at.regions.map((r) => `${r.page}:${r.box.map(fraction).join(',')}`).join(';');
  if (at.cells?.length) out.cells = at.cells.map((c) => `${c.sheet}!${c.range}`).join(';');
  return out;
}

/** The URL search fields of a citation read back; malformed parts are left out. */
export function parseCitation(search: CitationSearch): Located {
  const out: Located = {};
  const span = /^(\d+)-(\d+)$/.exec(search.span ?? '');
  if (span) out.span = { start: Number(span[1]), end: Number(span[2]) };
  const pages = (search.pages ?? '')
    .split(',')
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
  if (pages.length) out.pages = pages;
  const regions: Region[] = [];
  for (const part of (search.regions ?? '').split(';')) {
    const [page, box] = part.split(':');
    const values = (box ?? '').split(',').map(Number);
    if (values.length === 4 && values.every((v) => v >= 0 && v <= 1) && Number(page) > 0) regions.push({ page: Number(page), box: values });
  }
  if (regions.length) out.regions = regions;
  const cells = (search.cells ?? '').split(';').flatMap((part) => {
    const at = part.lastIndexOf('!');
    return at > 0 ? [{ sheet: part.slice(0, at), range: part.slice(at + 1) }] : [];
  });
  if (cells.length) out.cells = cells;
  return out;
}

/** `p. 2`, `pp. 2–3`, `Sheet1 A1:D9`: where a passage is, as a short label (empty when nothing is known). */
export function whereLabel(at: Located): string {
  const cells = at.cells?.map((c) => `${c.sheet} ${c.range}`).join(', ');
  if (cells) return cells;
  const pages = at.pages ?? [];
  if (pages.length === 0) return '';
  return pages.length === 1 ? `p. ${pages[0]}` : `pp. ${pages[0]}–${pages[pages.length - 1]}`;
}

/** A page of the original drawn by the server, fetched with the session's headers (an <img> cannot send them). */
function usePageImage(documentId: string, page: number | undefined) {
  const image = useQuery({
    queryKey: ['page-image', documentId, page],
    enabled: page !== undefined,
    staleTime: Number.POSITIVE_INFINITY,
    queryFn: async () => {
      const res = await fetch(`/v1/documents/${encodeURIComponent(documentId)}/pages/${page}/image?width=800`, { headers: sessionHeaders('GET') });
      if (!res.ok) throw new Error(`The page could not be drawn (${res.status})`);
      return URL.createObjectURL(await res.blob());
    },
  });
  useEffect(
    () => () => {
      if (image.data) URL.revokeObjectURL(image.data);
    },
    [image.data],
  );
  return image;
}

/** A box's place over its page image, as percentages of the image (the box's fractions of the page). */
function boxStyle(box: number[]) {
  const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = box;
  return { left: `${x0 * 100}%`, top: `${y0 * 100}%`, width: `${(x1 - x0) * 100}%`, height: `${(y1 - y0) * 100}%` };
}

/** One page of the original with the cited regions drawn over it, placed by their fractions of the page. */
function PageWithRegions({ documentId, filename, page, regions }: { documentId: string; filename: string; page: number; regions: Region[] }) {
  const image = usePageImage(documentId, page);
  if (image.error)
    return (
      <p role="alert" className="error">
        {image.error.message}
      </p>
    );
  if (!image.data) return <p role="status">Drawing page {page}…</p>;
  const onPage = regions.filter((r) => r.page === page);
  return (
    <figure className="page-view">
      <div className="page-canvas">
        <img src={image.data} alt={`Page ${page} of ${filename}`} />
        {onPage.map((r) => (
          <span key={r.box.join(',')} className="region-highlight" data-page={r.page} style={boxStyle(r.box)} />
        ))}
      </div>
      <figcaption>
        Page {page}: {onPage.length === 1 ? 'the cited passage is' : `the cited passage's ${onPage.length} parts are`} highlighted
      </figcaption>
    </figure>
  );
}

/** How much Markdown is shown around a cited passage, on each side. */
const CONTEXT_CHARS = 400;

/** The document's Markdown around the passage, the passage itself marked by its exact span. */
function MarkdownPassage({ markdown, span }: { markdown: string; span: { start: number; end: number } }) {
  const from = Math.max(0, span.start - CONTEXT_CHARS);
  const to = Math.min(markdown.length, span.end + CONTEXT_CHARS);
  return (
    <section className="passage-source" aria-label="The passage in the Markdown">
      {from > 0 && '…'}
      {markdown.slice(from, span.start)}
      <mark className="cited-span">{markdown.slice(span.start, span.end)}</mark>
      {markdown.slice(span.end, to)}
      {to < markdown.length && '…'}
    </section>
  );
}

/**
 * A cited passage checked at a glance: the original page with the cited regions highlighted (PDFs), beside the
 * document's Markdown with the same passage marked by its span. Several pages: one at a time, chosen by buttons.
 */
export function CitationView({ documentId, filename, at, markdown }: { documentId: string; filename: string; at: Located; markdown: string }) {
  const regionPages = [...new Set((at.regions ?? []).map((r) => r.page))];
  const [page, setPage] = useState<number | undefined>(regionPages[0]);
  const label = whereLabel(at);
  return (
    <section className="citation-view" aria-labelledby="citation-title">
      <h2 id="citation-title">Cited passage{label ? ` (${label})` : ''}</h2>
      {regionPages.length > 1 && (
        <fieldset className="inline">
          <legend>Pages of the passage</legend>
          {regionPages.map((p) => (
            <button key={p} type="button" aria-pressed={p === page} onClick={() => setPage(p)}>
              Page {p}
            </button>
          ))}
        </fieldset>
      )}
      <div className="citation-panes">
        {page !== undefined && <PageWithRegions documentId={documentId} filename={filename} page={page} regions={at.regions ?? []} />}
        {at.span && <MarkdownPassage markdown={markdown} span={at.span} />}
      </div>
    </section>
  );
}
