import type { Access, AgentCaller, Principal, SessionClaims, WebhookCaller } from '@dossier/core';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { CALLERS } from '../src/http/auth.ts';
import { type AuthMode, type CallerOf, route } from '../src/routes/define.ts';

/**
 * Issue 35 (item 4): the caller a handler receives is typed by the route's auth mode. These are type-level checks
 * (tsc checks this file; vitest runs the few runtime ones): a handler gets exactly the caller its mode gives, and code
 * that reads a caller its mode does not give does not compile.
 */

const responses = { 200: { description: 'ok', schema: z.object({ ok: z.boolean() }) } } as const;

describe('the caller a route handler receives', () => {
  it("is the key's non-null sandbox on an 'key' route", () => {
    route({
      method: 'get',
      path: '/t',
      summary: 't',
      tag: 't',
      auth: 'key',
      responses,
      handle: async (_ctx, { caller }) => {
        expectTypeOf(caller).toEqualTypeOf<NonNullable<Access>>();
        expectTypeOf(caller.projectId).toBeString();
        // @ts-expect-error a key's caller is not a person
        void caller.accountId;
      },
    });
  });

  it("is the sandbox or null on a 'key-or-public' route", () => {
    route({
      method: 'get',
      path: '/t',
      summary: 't',
      tag: 't',
      auth: 'key-or-public',
      responses,
      handle: async (_ctx, { caller }) => {
        expectTypeOf(caller).toEqualTypeOf<Access>();
        // @ts-expect-error an anonymous reader has no sandbox: the caller may be null
        void caller.projectId;
      },
    });
  });

  it("is the session's claims on a 'jwt' route", () => {
    route({
      method: 'get',
      path: '/t',
      summary: 't',
      tag: 't',
      auth: 'jwt',
      role: 'account',
      responses,
      handle: async (_ctx, { caller }) => {
        expectTypeOf(caller).toEqualTypeOf<SessionClaims>();
        expectTypeOf(caller.accountId).toBeString();
        // @ts-expect-error a signed-in person has no project sandbox
        void caller.projectId;
      },
    });
  });

  it("is a person or a project key on a 'jwt-or-key' route, and an org key on a 'jwt-or-org-key' route", () => {
    route({
      method: 'get',
      path: '/t/:orgId',
      summary: 't',
      tag: 't',
      auth: 'jwt-or-key',
      role: 'member',
      responses,
      handle: async (_ctx, { caller }) => {
        expectTypeOf(caller).toEqualTypeOf<WebhookCaller>();
        // @ts-expect-error the caller may be a key: its session is not known without narrowing
        void caller.session;
      },
    });
    route({
      method: 'get',
      path: '/t/:orgId',
      summary: 't',
      tag: 't',
      auth: 'jwt-or-org-key',
      role: 'member',
      responses,
      handle: async (_ctx, { caller }) => {
        expectTypeOf(caller).toEqualTypeOf<AgentCaller>();
        if ('orgKey' in caller) expectTypeOf(caller.orgKey.orgId).toBeString();
      },
    });
  });

  it("is the MCP principal on a 'key-or-oauth' route, and nothing where credentials are not read", () => {
    route({
      method: 'post',
      path: '/t',
      summary: 't',
      tag: 't',
      auth: 'key-or-oauth',
      responses,
      handle: async (_ctx, { caller }) => {
        expectTypeOf(caller).toEqualTypeOf<Extract<Principal, { kind: 'project_key' | 'oauth' }>>();
        // @ts-expect-error no user or anonymous caller reaches the MCP endpoint
        expectTypeOf(caller.kind).toEqualTypeOf<'user'>();
      },
    });
    route({
      method: 'get',
      path: '/t',
      summary: 't',
      tag: 't',
      auth: 'none',
      responses,
      handle: async (_ctx, { caller }) => {
        expectTypeOf(caller).toEqualTypeOf<undefined>();
      },
    });
    route({
      method: 'put',
      path: '/t',
      summary: 't',
      tag: 't',
      auth: 'upload-url',
      responses,
      handle: async (_ctx, { caller }) => {
        expectTypeOf(caller).toEqualTypeOf<undefined>();
      },
    });
  });

  it('comes from one conversion per auth mode, whose result is the type the handler declares', () => {
    expectTypeOf(CALLERS).toEqualTypeOf<{ readonly [M in AuthMode]: (principal: Principal) => CallerOf<M> }>();
    expectTypeOf<CallerOf<'key'>>().not.toEqualTypeOf<CallerOf<'key-or-public'>>();
  });

  it('is refused at compile time when a route that takes a JWT declares no role', () => {
    // @ts-expect-error a 'jwt' route must declare the role a user needs (issue 33)
    route({ method: 'get', path: '/t', summary: 't', tag: 't', auth: 'jwt', responses, handle: async () => {} });
  });
});
