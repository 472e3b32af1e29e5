import { responses } from '@dossier/core';
import { sniffType } from '@dossier/core/internal';
import { type RouteDef, type RouteDeps, route } from './define.ts';

/** Document images and table-chunk captions. */
export function imageRoutes({ dossier }: RouteDeps): RouteDef[] {
  const d = dossier.documents;
  return [
    route({
      method: 'get',
      path: '/v1/documents/:id/images',
      operationId: 'listImages',
      tag: 'documents',
      auth: 'key-or-public',
      summary: 'Images of a document ordered by position',
      responses: { 200: { description: 'The images', schema: responses.image.array() }, 404: 'Not found' },
      handle: async (ctx, { caller, reply }) => reply(200, await d.images(caller, ctx.params.id)),
    }),
    route({
      method: 'get',
      path: '/v1/documents/:id/images/:imageId',
      operationId: 'getImage',
      tag: 'documents',
      auth: 'key-or-public',
      summary: 'Raw image bytes (immutable; private collections need the API key as Bearer)',
      responses: {
        200: { description: 'The image bytes (its image type when the bytes confirm it)', contentType: 'application/octet-stream' },
        401: 'Key required',
        404: 'Not found',
      },
      handle: async (ctx, { caller }) => {
        const { bytes, mimeType, public: isPublic } = await d.image(caller, ctx.params.id, ctx.params.imageId);
        // Only a type confirmed by the bytes is served as an image; anything else downloads as opaque data.
        ctx.type = sniffType(bytes, '') === mimeType ? mimeType : 'application/octet-stream';
        // Image bytes never change: cacheable for a year, by shared caches only when the collection is public.
        ctx.set({ 'Cache-Control': `${isPublic ? 'public' : 'private'}, max-age=31536000, immutable`, 'X-Content-Type-Options': 'nosniff' });
        ctx.status = 200;
        ctx.body = Buffer.from(bytes);
      },
    }),
    route({
      method: 'get',
      path: '/v1/documents/:id/chunks/captions',
      operationId: 'listTableCaptions',
      tag: 'documents',
      auth: 'key-or-public',
      summary: 'Table chunks with their captions, by section position then chunk position',
      responses: { 200: { description: 'Table chunks and their captions', schema: responses.tableCaptions }, 404: 'Not found' },
      handle: async (ctx, { caller, reply }) => reply(200, await d.captions(caller, ctx.params.id)),
    }),
  ];
}
