import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers.ts';
import { authorizeParams, hiddenValue, pkcePair, postForm, registerClient, signIn, tokensFor } from './oauth-client.ts';

/**
 * Issue 33, finding 6b: the page session a sign-in hands out (a hidden form field) was accepted on any page: one
 * issued on client A's consent approved client B, and opened the connected-clients revoke form. It is now bound to
 * its client and purpose.
 */

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const consentWith = (params: Record<string, string | undefined>, session: string) =>
  postForm(`${t.url}/oauth/authorize/consent`, { ...params, session, sandbox: `${t.projectId}:live`, granted_scope: 'svc:read', decision: 'allow' });

/** Sign in on the connected-clients page: its page and page session. */
async function connectionsSignIn(): Promise<{ body: string; session: string }> {
  const res = await postForm(`${t.url}/oauth/connected-clients`, { email: t.email, password: t.password });
  expect(res.status).toBe(200);
  return { body: res.body, session: hiddenValue(res.body, 'session') };
}

describe('page sessions are bound to their client and purpose', () => {
  it("opens the consent of the client it was issued for, and not another client's", async () => {
    const a = await registerClient(t, { client_name: 'Client A' });
    const b = await registerClient(t, { client_name: 'Client B' });
    const paramsA = authorizeParams(t, a.client_id, pkcePair().challenge);
    const paramsB = authorizeParams(t, b.client_id, pkcePair().challenge);
    const { session } = await signIn(t, paramsA);
    expect(session).toBeTruthy();
    const onB = await consentWith(paramsB, session!);
    expect(onB.status).toBe(401);
    expect(onB.body).toContain('sign in again');
    expect(onB.location).toBeNull();
    const onA = await consentWith(paramsA, session!);
    expect(onA.status).toBe(303);
    expect(onA.location?.searchParams.get('code')).toMatch(/^dso_ac_/);
  });

  it("does not open the connected-clients revoke form with a consent session, nor a consent with that page's session", async () => {
    const { client } = await tokensFor(t);
    const listed = await connectionsSignIn();
    const connectionId = hiddenValue(listed.body, 'connectionId');
    const orgId = hiddenValue(listed.body, 'orgId');
    const projectId = hiddenValue(listed.body, 'projectId');
    const params = authorizeParams(t, client.client_id, pkcePair().challenge);
    const { session: consentSession } = await signIn(t, params);
    const revoke = await postForm(`${t.url}/oauth/connected-clients/revoke`, { session: consentSession!, orgId, projectId, connectionId });
    expect(revoke.status).toBe(401);
    expect(revoke.body).toContain('sign in again');
    expect((await connectionsSignIn()).body).toContain(connectionId); // still connected
    const consent = await consentWith(params, listed.session);
    expect(consent.status).toBe(401);
    // The page's own session still works on its own form.
    const own = await postForm(`${t.url}/oauth/connected-clients/revoke`, { session: listed.session, orgId, projectId, connectionId });
    expect(own.status).toBe(200);
    expect(own.body).toContain('Disconnected');
  });
});
