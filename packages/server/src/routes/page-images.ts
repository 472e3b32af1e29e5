import { schemas } from '@dossier/core';
import { type RouteDef, type RouteDeps, route } from './define.ts';

/** A page number from the path: digits only, else NaN, which the service refuses (400) once the caller may read the document. */
const pageNumber = (raw: string | undefined): number => (raw && /^\d{1,6}$/.test(raw) ? Number(raw) : Number.NaN);

/** Page images of PDFs, for drawing a citation's regions on the original page (issue 39). */
export function pageImageRoutes({ dossier }: RouteDeps): RouteDef[] {
  return [
    route({
      method: 'get',
      path: '/v1/documents/:id/pages/:page/image',
      operationId: 'getDocumentPageImage',
      tag: 'documents',
      auth: 'key-or-public',
      query: schemas.pageImageQuerySchema,
      summary: "A page of a PDF's original as PNG, to draw a result's `regions` on (drawn once per width, then cached; private collections need the API key)",
      responses: {
        200: { description: 'The page as PNG', contentType: 'image/png' },
        400: 'Not a page number, or a width out of range',
        401: 'Key required',
        404: 'No such document or page',
        422: 'The document is not a PDF (it has no pages)',
        503: 'No PDF renderer on this server',
      },
      handle: async (ctx, { caller, query }) => {
        const page = pageNumber(ctx.params.page);
        const { png, public: isPublic } = await dossier.documents.pageImage(caller, ctx.params.id, page, query.width);
        ctx.type = 'image/png';
        // A page changes only when its document's file is replaced in place (rare): cached an hour, shared only when public.
        ctx.set({ 'Cache-Control': `${isPublic ? 'public' : 'private'}, max-age=3600`, 'X-Content-Type-Options': 'nosniff' });
        ctx.status = 200;
        ctx.body = Buffer.from(png);
      },
    }),
  ];
}
