// Type-level tests of route definitions (issue 35): a route's schemas type what its handler receives and may send.
// They run under `tsc` (pnpm typecheck); the runtime assertions check the declaration is kept as given.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { route } from '../src/routes/define.ts';

const body = z.strictObject({ name: z.string(), size: z.coerce.number().default(10) });
const query = z.strictObject({ limit: z.coerce.number().int().optional() });
const created = z.object({ id: z.string(), name: z.string() });
const listed = z.object({ items: z.array(created), total: z.number() });

describe('route definitions', () => {
  it('type the handler’s body and query as the outputs of the route’s schemas', () => {
    const def = route({
      method: 'post',
      path: '/v1/things',
      summary: 'Create a thing',
      tag: 'Things',
      auth: 'none',
      body,
      query,
      responses: { 201: { description: 'Created', schema: created }, 400: 'Bad input' },
      handle: async (_ctx, input) => {
        expectTypeOf(input.body).toEqualTypeOf<{ name: string; size: number }>();
        expectTypeOf(input.query).toEqualTypeOf<{ limit?: number | undefined }>();
      },
    });
    expect(def.path).toBe('/v1/things');
  });

  it('types a route without schemas as having no body and no query', () => {
    route({
      method: 'get',
      path: '/v1/things',
      summary: 'List things',
      tag: 'Things',
      auth: 'none',
      responses: { 200: { description: 'The things', schema: listed } },
      handle: async (_ctx, input) => {
        expectTypeOf(input.body).toEqualTypeOf<undefined>();
        expectTypeOf(input.query).toEqualTypeOf<undefined>();
      },
    });
  });

  it('lets reply send only the statuses its responses declare, each with its schema’s shape', () => {
    const def = route({
      method: 'post',
      path: '/v1/things',
      summary: 'Create a thing',
      tag: 'Things',
      auth: 'none',
      body,
      responses: { 201: { description: 'Created', schema: created }, 200: { description: 'Listed', schema: listed }, 404: 'Not found' },
      handle: async (_ctx, { reply }) => {
        expectTypeOf(reply).parameter(0).toEqualTypeOf<200 | 201>();
        reply(201, { id: 'a', name: 'b' });
        reply(200, { items: [], total: 0 });
        // @ts-expect-error a status the route does not declare
        reply(202, { id: 'a', name: 'b' });
        // @ts-expect-error 404 has no JSON schema: the router sends its {error} body
        reply(404, { error: 'x' });
        // @ts-expect-error the 201 body lacks `name`
        reply(201, { id: 'a' });
        // @ts-expect-error the 200 body is the list, not one thing
        reply(200, { id: 'a', name: 'b' });
      },
    });
    expect(Object.keys(def.responses).sort()).toEqual(['200', '201', '404']);
  });

  it('declares the role a signed-in caller needs exactly when the route accepts a JWT', () => {
    const base = { method: 'get', path: '/v1/x', summary: 'x', tag: 'X', responses: { 204: 'Done' }, handle: async () => {} } as const;
    route({ ...base, auth: 'jwt', role: 'member' });
    route({ ...base, auth: 'key' });
    // @ts-expect-error a JWT route must declare its role
    route({ ...base, auth: 'jwt' });
    // @ts-expect-error a key-only route takes no role: no JWT reaches it
    route({ ...base, auth: 'key', role: 'admin' });
  });
});
