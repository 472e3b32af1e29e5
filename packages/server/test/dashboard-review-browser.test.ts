import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { dossierContext, isClaimExtraction, recordClaimsTurn, ScriptedModel, type ScriptedTurn, scriptedResolver } from '@dossier/core/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers.ts';
import { tokensFor } from './oauth-client.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';
import { axeViolations, CHROMIUM, launchChromium, ROOT, RUN_BROWSER_TESTS, signInWithPassword, watchPage } from './browser-kit.ts';

/**
 * The dashboard's part 2 in a real browser (issue 37): Debian's Chromium driven by Playwright against one real
 * server. An admin administers the project (keys shown once, rotated and revoked after a confirmation that says what
 * stops working; a webhook whose failed delivery is retried from its log; an invitation; a connected MCP client
 * revoked; the usage meters), then a member sees the same screen without its write actions while the API still
 * refuses them. Every screen is checked with axe-core (no serious or critical violation).
 *
 * Skipped when Chromium is missing, except in CI. DOSSIER_SCREENSHOTS=1 writes docs/dashboard-*.png.
 */

const RUN = RUN_BROWSER_TESTS;
const MEMO =
  '# Memo\n\nThe quarterly review moved to Thursday morning because the finance team travels on Monday and Tuesday. Please bring the updated forecasts and the staffing plan for the new warehouse in Ghent.\n';
const MEMBER = { email: 'member@example.test', password: 'quiet harbour lanterns 42' };

const POLICY_2022 = '# Travel policy\n\nEmployees may claim 40 euros per day for meals while travelling.\n';
const POLICY_2023 = '# Draft policy\n\nMeals cost 30 euros a day on business trips.\n';
const POLICY_2024 = '# Expenses\n\nThe meal allowance while travelling is 25 euros per day.\n\n## Hotels\n\nHotels are booked through the travel desk only.\n';
const userText = (request: { messages: { role: string; content: unknown }[] }) => String(request.messages.find((m) => m.role === 'user')?.content ?? '');

/** Claims by document; the judge reports 2022 against 2024 (medium, to apply) and 2023 against 2024 (high, to dismiss). */
const policyModel = new ScriptedModel((request): ScriptedTurn => {
  const text = userText(request);
  if (isClaimExtraction(request)) {
    if (text.includes('30 euros'))
      return recordClaimsTurn([{ section: 1, text: 'Meals are reimbursed at 30 euros per day.', importance: 3, sourceText: 'Meals cost 30 euros a day' }]);
    if (text.includes('40 euros'))
      return recordClaimsTurn([
        { section: 1, text: 'Meals are reimbursed at 40 euros per day.', importance: 4, sourceText: 'claim 40 euros per day for meals' },
      ]);
    return recordClaimsTurn([
      { section: 1, text: 'Meals are reimbursed at 25 euros per day.', importance: 5, sourceText: 'The meal allowance while travelling is 25 euros per day.' },
      { section: 2, text: 'Hotels are booked through the travel desk.', importance: 2, sourceText: 'Hotels are booked through the travel desk only.' },
    ]);
  }
  const numberOf = (words: string) => Number(new RegExp(`^(\\d+)\\. .*${words}`, 'm').exec(text)?.[1]);
  const contradictions = [
    {
      claims: [numberOf('40 euros'), numberOf('25 euros')],
      severity: 'medium',
      explanation: 'Two different daily meal allowances.',
      suggestedInstruction: 'Quote the newest expenses policy for meal allowances.',
    },
    { claims: [numberOf('30 euros'), numberOf('25 euros')], severity: 'high', explanation: 'The 2023 draft is still published beside the 2024 policy.' },
  ];
  return { toolCalls: [{ name: 'report_contradictions', arguments: { topicSummary: 'Meal allowance', contradictions } }] };
});

let t: TestServer;
let browser: Browser;
let policies = '';
let receiver: Receiver;
/** The signing secret the dashboard showed once for the webhook it created (the receiver verifies with it). */
let hookSecret = '';
const problems: string[] = [];

async function screenshot(page: Page, name: string): Promise<void> {
  if (!process.env.DOSSIER_SCREENSHOTS) return;
  mkdirSync(join(ROOT, 'docs'), { recursive: true });
  await page.screenshot({ path: join(ROOT, 'docs', `dashboard-${name}.png`), fullPage: false });
}

/** A signed-in page in a fresh browser context (its own cookies), with clipboard access. */
async function signedIn(credentials: { email: string; password: string }): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
  const page = await context.newPage();
  watchPage(page, problems);
  await signInWithPassword(page, t.url, credentials);
  await page.getByRole('heading', { name: 'Collections' }).waitFor();
  return page;
}

/** A write from the page itself, with its session cookie and CSRF token: the server decides, not the interface. */
async function pagePost(page: Page, path: string, body: unknown): Promise<string> {
  return page.evaluate<string>(`(async () => {
    const { csrfToken } = await (await fetch('/v1/dashboard/session')).json();
    const res = await fetch(${JSON.stringify(path)}, { method: 'POST', headers: { 'content-type': 'application/json', 'X-Dossier-CSRF': csrfToken }, body: ${JSON.stringify(JSON.stringify(body))} });
    return res.status + ' ' + (await res.text());
  })()`);
}

/** A data-plane call with an API key: its status only. */
async function statusWithKey(key: string): Promise<number> {
  return (await t.request('GET', '/v1/collections', { auth: key })).status;
}

async function adminJwt(): Promise<string> {
  return (await t.request('POST', '/v1/auth/login', { auth: null, json: { email: t.email, password: t.password } })).body.token;
}

/** A member of the org (and of no other), through an invitation accepted over the API. */
async function addMember(): Promise<void> {
  const jwt = (await t.request('POST', '/v1/auth/login', { auth: null, json: { email: t.email, password: t.password } })).body.token;
  const invited = await t.request('POST', `/v1/orgs/${t.orgId}/invitations`, { auth: jwt, json: { email: MEMBER.email, role: 'member', sendEmail: false } });
  const token = new URL(invited.body.url).searchParams.get('token');
  const accepted = await t.request('POST', '/v1/invitations/accept', { auth: null, json: { token, password: MEMBER.password } });
  if (accepted.status !== 200) throw new Error(`accept: ${accepted.status} ${JSON.stringify(accepted.body)}`);
}

describe.runIf(RUN)('the dashboard part 2 in a browser', () => {
  let admin: Page;
  beforeAll(async () => {
    if (!CHROMIUM) throw new Error('CI: /usr/bin/chromium is missing (.ci/run installs it)');
    execFileSync(process.execPath, [join(ROOT, 'packages', 'web', 'scripts', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
    t = await startTestServer({ config: { providerRetries: 0, webhooksAllowHttpLoopback: true, webhookRetryBaseMs: 1 } });
    receiver = await startReceiver(() => hookSecret);
    await addMember();
    browser = await launchChromium();
    admin = await signedIn({ email: t.email, password: t.password });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await t?.close();
  });

  it('creates an API key shown once with a copy button, rotates and revokes it after confirmations', async () => {
    await admin.getByRole('link', { name: 'Administration' }).click();
    await admin.getByRole('heading', { name: 'Project administration' }).waitFor();
    await admin.getByText('Your role in this org: admin').waitFor();
    await admin.getByLabel('Key name', { exact: true }).fill('ci runner');
    await admin.keyboard.press('Enter');
    const shown = admin.getByTestId('new-key');
    const first = (await shown.textContent()) ?? '';
    expect(first).toMatch(/^dsk_test_/);
    await admin.getByRole('button', { name: 'Copy key' }).click();
    await admin.getByText('Copied to the clipboard.').waitFor();
    expect(await admin.evaluate<string>('navigator.clipboard.readText()')).toBe(first);
    expect(await statusWithKey(first)).toBe(200);
    expect(await axeViolations(admin)).toEqual([]);
    await screenshot(admin, 'admin');
    await admin.getByRole('button', { name: 'Done, hide it' }).click();
    expect(await shown.count()).toBe(0);

    const lastFour = first.slice(-4);
    await admin.getByRole('button', { name: `Rotate key …${lastFour}` }).click();
    const dialog = admin.getByRole('dialog', { name: 'Rotate this key?' });
    expect(await dialog.textContent()).toContain(`ending in …${lastFour} (test) stops working at once`);
    expect(await axeViolations(admin)).toEqual([]);
    await dialog.getByRole('button', { name: 'Rotate key' }).click();
    const second = (await shown.textContent()) ?? '';
    expect(second).not.toBe(first);
    expect([await statusWithKey(first), await statusWithKey(second)]).toEqual([401, 200]);

    await admin.getByRole('button', { name: `Revoke key …${second.slice(-4)}` }).click();
    await admin.getByRole('dialog', { name: 'Revoke this key?' }).getByRole('button', { name: 'Cancel' }).click();
    expect(await statusWithKey(second)).toBe(200); // cancelled: nothing removed
    await admin.getByRole('button', { name: `Revoke key …${second.slice(-4)}` }).click();
    await admin.getByRole('dialog', { name: 'Revoke this key?' }).getByRole('button', { name: 'Revoke key' }).click();
    await admin
      .getByRole('row')
      .filter({ hasText: second.slice(-4) })
      .filter({ hasText: 'revoked' })
      .waitFor();
    expect(await statusWithKey(second)).toBe(401);

    const secret = 'sk-ant-test-0000000000000000wxyz';
    await admin.getByLabel('Provider key name').fill('team anthropic');
    await admin.getByLabel('Provider key', { exact: true }).fill(secret);
    await admin.getByRole('button', { name: 'Add provider key' }).click();
    const stored = admin.getByRole('listitem').filter({ hasText: 'team anthropic' });
    await stored.waitFor();
    expect(await admin.content()).not.toContain(secret);
    await stored.getByRole('button', { name: 'Delete provider key team anthropic' }).click();
    await admin.getByRole('dialog', { name: 'Delete this provider key?' }).getByRole('button', { name: 'Delete provider key' }).click();
    await expect.poll(() => stored.count()).toBe(0);
    expect((await t.request('GET', `/v1/projects/${t.projectId}/provider-keys`, { auth: t.testKey })).body).toEqual([]);
  });

  it('adds a webhook, shows a failed delivery with its response, and retries it from the log', async () => {
    await admin.getByLabel('Endpoint URL (HTTPS)').fill(receiver.url);
    await admin.getByLabel('document.ready').check();
    await admin.getByRole('button', { name: 'Add webhook' }).click();
    const secretShown = admin.getByRole('region', { name: 'Signing secret' });
    hookSecret = ((await secretShown.locator('code').textContent()) ?? '').trim();
    expect(hookSecret).toMatch(/^[0-9a-f]{64}$/);
    // Issue 37: a signed test event, its outcome on the card and in the log.
    await admin.getByRole('button', { name: `Send test event to ${receiver.url}` }).click();
    await admin.getByRole('status').filter({ hasText: 'Test event delivered: the endpoint answered 200 (ok).' }).waitFor();
    const tested = receiver.received.find((r) => r.type === 'webhook.test');
    expect(tested?.signatureValid).toBe(true);
    expect(tested?.body.data.endpointId).toBeTruthy();
    receiver.answers.push(500);
    await admin.getByRole('button', { name: `Send test event to ${receiver.url}` }).click();
    await admin.getByRole('status').filter({ hasText: 'Test event failed: the endpoint answered 500 (failing with 500).' }).waitFor();
    expect(await axeViolations(admin)).toEqual([]);
    receiver.answers.push(...Array(11).fill(500)); // the first attempt and its 10 retries fail
    const collection = await t.createCollection({ name: 'hooked' });
    await t.ingest(collection.id, 'a.md', '# A\n\ntext\n');
    const card = admin.getByRole('listitem').filter({ hasText: receiver.url });
    await card.getByText(/Delivery log/).click();
    const row = card.getByRole('row').filter({ hasText: 'document.ready' });
    await expect
      .poll(
        async () => {
          await card.getByRole('button', { name: 'Refresh log' }).click();
          return row.textContent();
        },
        { timeout: 20_000 },
      )
      .toMatch(/failed11500 failing with 500/);
    expect(await axeViolations(admin)).toEqual([]);
    await row.getByRole('button', { name: 'Retry' }).click();
    await expect
      .poll(
        async () => {
          await card.getByRole('button', { name: 'Refresh log' }).click();
          return row.textContent();
        },
        { timeout: 20_000 },
      )
      .toMatch(/success1200 ok/);
    expect(await card.getByRole('row').filter({ hasText: 'webhook.test' }).allTextContents()).toEqual([
      expect.stringMatching(/^webhook\.testfailed1500 failing with 500/),
      expect.stringMatching(/^webhook\.testsuccess1200 ok/),
    ]);
  });

  it('invites a person, and revokes a connected MCP client after a confirmation', async () => {
    await admin.getByLabel('Invite e-mail').fill('new@example.test');
    await admin.getByRole('button', { name: 'Invite', exact: true }).click();
    await admin.getByText(/Invitation link \(shown once\): http/).waitFor();
    await admin.getByRole('button', { name: 'Revoke invitation of new@example.test' }).waitFor();
    const { client } = await tokensFor(t, 'svc:read');
    await admin.reload();
    const item = admin.getByRole('listitem').filter({ hasText: 'Test desktop app' });
    await item.getByRole('button', { name: 'Revoke' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Revoke this connection?' });
    expect(await dialog.textContent()).toContain('loses access to this project at once');
    await dialog.getByRole('button', { name: 'Revoke connection' }).click();
    await admin.getByText('No assistant is connected.').waitFor();
    const jwt = (await t.request('POST', '/v1/auth/login', { auth: null, json: { email: t.email, password: t.password } })).body.token;
    const left = await t.request('GET', `/v1/orgs/${t.orgId}/projects/${t.projectId}/mcp-clients`, { auth: jwt });
    expect(left.body.map((c: { clientId: string }) => c.clientId)).not.toContain(client.client_id);
    await admin.getByRole('heading', { name: /Usage this month \(test sandbox\)/ }).waitFor();
    await admin.getByText(/^Queries: \d+/).waitFor();
    // Issue 37: the month day by day as charts against the plan, each with a table of its days.
    const month = new Date().toISOString().slice(0, 7);
    const chart = admin.getByRole('img', { name: new RegExp(`^Queries in ${month}: \\d+ used, no limit by ${month}-\\d\\d\\.$`) });
    await chart.waitFor();
    expect(await chart.locator('polyline').getAttribute('points')).toMatch(/^[\d.]+,[\d.]+/);
    await admin.getByRole('img', { name: new RegExp(`^Credits in ${month}: `) }).waitFor();
    await admin.getByText('Credits day by day (table)').click();
    const days = admin.getByRole('table', { name: `Credits used each day of ${month}` }).getByRole('row');
    expect(await days.count()).toBe(new Date().getUTCDate() + 1);
    expect(await axeViolations(admin)).toEqual([]);
    await screenshot(admin, 'usage');
  });

  it('runs duplicate detection, compares a copy with its canonical (shared text marked), promotes it, disbands the group', async () => {
    const auth = t.testKey; // the sandbox the picker shows
    const collection = await t.createCollection({ name: 'Memos' }, auth);
    const settings = { enableDeduplication: true, enableSummarization: false, enableCaptioning: false };
    expect((await t.request('PATCH', `/v1/collections/${collection.id}`, { auth, json: settings })).status).toBe(200);
    const ids = [(await t.ingest(collection.id, 'memo.md', MEMO, { auth })).id];
    ids.push((await t.ingest(collection.id, 'Fwd memo.txt', `Forwarded message\n\n${MEMO.replace('# Memo\n\n', '')}`, { auth })).id);
    await t.ingest(collection.id, 'lunch.md', '# Lunch\n\nThe canteen serves soup on Wednesdays and pasta on Fridays for everyone in the building.\n', {
      auth,
    });
    await admin.goto(t.url);
    await admin.getByRole('link', { name: 'Memos' }).click();
    await admin.getByRole('link', { name: 'Duplicates' }).click();
    await admin.getByRole('button', { name: 'Run duplicate detection' }).click();
    await admin.getByText(/Last run: completed, \d+ duplicates in \d+ groups/).waitFor({ timeout: 20_000 });
    // The canonical the detection chose: the longer copy (the forwarded one keeps every sentence).
    const group = admin.getByRole('listitem', { name: 'Group of Fwd memo.txt' });
    expect(await group.getByRole('row').filter({ hasText: 'Fwd memo.txt' }).textContent()).toContain('★ canonical');
    expect(
      await group
        .getByRole('row')
        .filter({ hasText: /^memo\.md/ })
        .textContent(),
    ).toMatch(/near duplicate\d+%\d+%/);
    await group.getByRole('button', { name: 'Compare memo.md with the canonical' }).click();
    const compare = admin.getByRole('region', { name: 'memo.md compared with Fwd memo.txt' });
    await compare.getByRole('region', { name: 'Fwd memo.txt (canonical)' }).locator('mark').first().waitFor();
    expect((await compare.getByRole('region', { name: 'memo.md', exact: true }).locator('mark').allTextContents()).join(' ')).toContain('quarterly review');
    expect(await axeViolations(admin)).toEqual([]);
    await screenshot(admin, 'duplicates');
    await group.getByRole('button', { name: 'Make canonical: memo.md' }).click();
    const promoted = admin.getByRole('listitem', { name: 'Group of memo.md' });
    await promoted.waitFor();
    await promoted.getByRole('button', { name: 'Disband group' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Disband this group?' });
    expect(await dialog.textContent()).toContain('The 2 documents stop being marked as duplicates of memo.md. No document is deleted');
    await dialog.getByRole('button', { name: 'Disband group' }).click();
    await admin.getByRole('status').filter({ hasText: '0 groups' }).waitFor();
    expect((await t.request('GET', `/v1/collections/${collection.id}/duplicates`, { auth })).body.total).toBe(0);
    for (const id of ids) expect((await t.request('GET', `/v1/documents/${id}`, { auth })).status).toBe(200); // nothing deleted
  });

  it('compares any two members of a group side by side, not only a member with the canonical (issue 37)', async () => {
    const auth = t.testKey;
    const collection = await t.createCollection({ name: 'Copies' }, auth);
    const settings = { enableDeduplication: true, enableSummarization: false, enableCaptioning: false };
    expect((await t.request('PATCH', `/v1/collections/${collection.id}`, { auth, json: settings })).status).toBe(200);
    await t.ingest(collection.id, 'memo.md', MEMO, { auth });
    await t.ingest(collection.id, 'Fwd memo.txt', `Forwarded message\n\n${MEMO.replace('# Memo\n\n', '')}`, { auth });
    await t.ingest(collection.id, 'memo copy.md', MEMO.replace('Thursday morning', 'Thursday afternoon'), { auth });
    await t.server.dossier.idle();
    await admin.goto(`${t.url}/collections/${collection.id}/duplicates`);
    const group = admin.getByRole('listitem', { name: /^Group of / });
    await group.getByRole('button', { name: 'Compare two members…' }).click();
    const picker = group.getByRole('form', { name: 'Compare two members' });
    await picker.getByLabel('Compare', { exact: true }).selectOption({ label: 'memo.md' });
    await picker.getByLabel('with', { exact: true }).selectOption({ label: 'memo copy.md' });
    await picker.getByRole('button', { name: 'Compare these two' }).click();
    const compare = admin.getByRole('region', { name: 'memo.md compared with memo copy.md' });
    await compare.getByText(/\d+ shared passages?; \d+% of memo\.md and \d+% of memo copy\.md shared/).waitFor();
    const marked = async (name: string) => (await compare.getByRole('region', { name, exact: true }).locator('mark').allTextContents()).join(' ');
    await expect.poll(() => marked('memo.md')).toContain('quarterly review');
    expect(await marked('memo copy.md')).toContain('quarterly review');
    expect(await axeViolations(admin)).toEqual([]);
    await picker.getByLabel('with', { exact: true }).selectOption({ label: 'memo.md' });
    expect(await picker.getByRole('button', { name: 'Compare these two' }).isDisabled()).toBe(true);
  });

  it('pages through more than 100 contradictions and filters them by severity and status (issue 37)', async () => {
    const auth = t.testKey;
    const collection = await t.createCollection({ name: 'Many conflicts' }, auth);
    const doc = await t.ingest(collection.id, 'rules.md', '# Rules\n\nThe allowance is 30 euros.\n', { auth });
    const rows = Array.from({ length: 130 }, (_, n) => ({
      id: crypto.randomUUID(),
      collectionId: collection.id,
      severity: n % 2 === 0 ? ('high' as const) : ('low' as const),
      status: n < 120 ? ('active' as const) : ('dismissed' as const),
      explanation: `Conflict ${n}`,
      clusterTopicSummary: `Topic ${n}`,
      suggestedInstruction: null,
      fingerprint: `fp-${n}`,
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
      claims: [
        {
          claimId: crypto.randomUUID(),
          text: 'x',
          sourceText: 'x',
          documentId: doc.id,
          documentName: 'rules.md',
          sectionId: crypto.randomUUID(),
          sectionTitle: 'Rules',
        },
      ],
    }));
    await dossierContext(t.server.dossier).store.insertContradictions(rows);
    await admin.goto(`${t.url}/collections/${collection.id}/contradictions`);
    const status = admin.getByRole('status').filter({ hasText: /contradictions/ });
    await status.filter({ hasText: '120 contradictions, 1–50 shown' }).waitFor();
    await admin.getByRole('button', { name: 'Next contradictions' }).click();
    await admin.getByRole('button', { name: 'Next contradictions' }).click();
    await status.filter({ hasText: '120 contradictions, 101–120 shown' }).waitFor();
    const items = admin.locator('ul.contradictions > li');
    expect(await items.count()).toBe(20);
    expect(await items.last().textContent()).toContain('Topic 0:');
    expect(await admin.getByRole('button', { name: 'Next contradictions' }).isDisabled()).toBe(true);
    await admin.getByLabel('Severity').selectOption('high');
    await status.filter({ hasText: '60 contradictions, 1–50 shown' }).waitFor();
    await admin.getByLabel('Status').selectOption('dismissed');
    await status.filter({ hasText: /^5 contradictions$/ }).waitFor();
    expect(await admin.getByRole('button', { name: 'Next contradictions' }).count()).toBe(0);
    expect(await axeViolations(admin)).toEqual([]);
  });

  it('detects contradictions, filters them, shows one side by side, dismisses one and applies the other', async () => {
    const auth = t.testKey;
    const models = scriptedResolver(policyModel);
    dossierContext(t.server.dossier).models = { resolve: (...args) => models.resolve(...args), hasProvider: (access) => models.hasProvider(access) };
    const collection = await t.createCollection({ name: 'Policies' }, auth);
    policies = collection.id;
    const settings = { enableSummarization: false, enableCaptioning: false, instructions: 'Answer in English.' };
    expect((await t.request('PATCH', `/v1/collections/${collection.id}`, { auth, json: settings })).status).toBe(200);
    await t.ingest(collection.id, 'policy-2022.md', POLICY_2022, { auth });
    await t.ingest(collection.id, 'policy-2023.md', POLICY_2023, { auth });
    await t.ingest(collection.id, 'policy-2024.md', POLICY_2024, { auth });
    await t.server.dossier.idle();
    await admin.goto(`${t.url}/collections/${collection.id}`);
    await admin.getByRole('link', { name: 'Contradictions' }).click();
    await admin.getByRole('button', { name: 'Run contradiction detection' }).click();
    await admin.getByText(/Last run: completed, 4 claims, 2 found/).waitFor({ timeout: 20_000 });
    await admin.getByRole('status').filter({ hasText: '2 contradictions' }).waitFor();
    await admin.getByLabel('Severity').selectOption('high');
    await admin.getByRole('status').filter({ hasText: '1 contradiction' }).waitFor();
    await admin.getByRole('button', { name: /high Meal allowance: policy-20\d\d\.md vs policy-20\d\d\.md/ }).click();
    const detail = admin.getByRole('region', { name: 'Contradiction' });
    await detail.getByText('The 2023 draft is still published beside the 2024 policy.').waitFor();
    await detail.getByRole('region', { name: 'Claim in policy-2023.md' }).locator('mark').filter({ hasText: 'Meals cost 30 euros a day' }).waitFor();
    await detail.getByRole('region', { name: 'Claim in policy-2024.md' }).locator('mark').filter({ hasText: '25 euros per day' }).waitFor();
    expect(await axeViolations(admin)).toEqual([]);
    await screenshot(admin, 'contradictions');
    await detail.getByRole('button', { name: 'Dismiss' }).click();
    await admin.getByRole('status').filter({ hasText: '0 contradictions' }).waitFor();

    await admin.getByLabel('Severity').selectOption('');
    await admin.getByRole('button', { name: /medium Meal allowance/ }).click();
    await detail.getByRole('button', { name: 'Apply instruction' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Change the collection instructions?' });
    expect(await dialog.textContent()).toContain('NowAnswer in English.AfterAnswer in English.\n\nQuote the newest expenses policy for meal allowances.');
    expect(await axeViolations(admin)).toEqual([]);
    await dialog.getByRole('button', { name: 'Apply instruction' }).click();
    await admin.getByRole('status').filter({ hasText: '0 contradictions' }).waitFor();
    await admin.getByLabel('Status').selectOption('applied');
    await admin.getByRole('button', { name: /medium Meal allowance/ }).waitFor();
    await admin.getByLabel('Status').selectOption('dismissed');
    await admin.getByRole('button', { name: /high Meal allowance/ }).waitFor();
    const after = await t.request('GET', `/v1/collections/${collection.id}`, { auth });
    expect(after.body.instructions).toBe('Answer in English.\n\nQuote the newest expenses policy for meal allowances.');
  });

  it('draws the claim map, recolours it, zooms and pans by keyboard, and opens a claim in its section', async () => {
    await admin.goto(`${t.url}/collections/${policies}`);
    await admin.getByRole('link', { name: 'Claim map' }).click();
    await admin.getByRole('status').filter({ hasText: '4 claims' }).waitFor();
    const canvas = admin.locator('canvas');
    const image = () => canvas.evaluate((c) => (c as unknown as { toDataURL(): string }).toDataURL());
    const painted = () =>
      canvas.evaluate((c) => {
        const canvas = c as unknown as {
          width: number;
          height: number;
          getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
        };
        const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        let count = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) count++;
        return count;
      });
    expect(await painted()).toBeGreaterThan(100); // the dots are drawn (two positions: three claims share one)
    const first = await image();
    await admin.getByLabel('Colour by').selectOption('importance');
    await expect.poll(image).not.toBe(first);
    await canvas.focus();
    await admin.keyboard.press('n');
    const card = admin.getByRole('complementary', { name: 'Claim under the pointer' });
    await card.getByText(/importance \d/).waitFor();
    await screenshot(admin, 'claim-map');
    const beforeZoom = await image();
    await admin.keyboard.press('+');
    await admin.keyboard.press('ArrowLeft');
    await expect.poll(image).not.toBe(beforeZoom);
    expect(await axeViolations(admin)).toEqual([]);
    const claim = (await card.locator('p.claim').textContent()) ?? '';
    expect(claim).toMatch(/euros per day|travel desk/);
    await admin.keyboard.press('Enter');
    await admin.waitForURL(/\/documents\/[^?]+\?section=/);
    await admin.locator('article section.target').waitFor();
    await admin.getByText(/^Claims \(\d\)$/).click();
    const row = admin.getByRole('row').filter({ hasText: claim });
    expect(await row.textContent()).toMatch(/^\d.+euros per day.+/);
    expect(await axeViolations(admin)).toEqual([]);
  });

  it('creates an agent (the output schema checked as typed), previews the draft, invokes it, and browses its runs and steps', async () => {
    const memos = (await t.request('GET', '/v1/collections', { auth: t.testKey })).body.find((c: { name: string }) => c.name === 'Memos').id;
    const agentModel = new ScriptedModel((_request, index) =>
      index % 2 === 0
        ? { toolCalls: [{ name: 'search_collection', arguments: { collectionId: memos, query: 'quarterly review' } }] }
        : { text: ['The review moved ', 'to Thursday [S1].'] },
    );
    const models = scriptedResolver(agentModel);
    dossierContext(t.server.dossier).models = { resolve: (...args) => models.resolve(...args), hasProvider: (access) => models.hasProvider(access) };
    await admin.getByRole('link', { name: 'Agents' }).click();
    await admin.getByRole('button', { name: 'New agent' }).click();
    await admin.getByLabel('Agent name').fill('Analyst');
    await admin.getByLabel('Slug (in its URL)').fill('analyst');
    await admin.getByLabel('Model').fill('scripted');
    await admin.getByLabel('System prompt').fill('You answer from the memos.');
    await admin.getByLabel('every collection of the sandbox').uncheck();
    await admin.getByRole('group', { name: 'Collections it may read' }).getByLabel('Memos', { exact: true }).check();
    await admin.getByLabel(/Output schema/).fill('{"type": ');
    await admin.getByText(/Not valid JSON/).waitFor();
    expect(await admin.getByRole('button', { name: 'Create agent' }).isDisabled()).toBe(true);
    await admin.getByLabel(/Output schema/).fill('[]');
    await admin.getByText('The output schema must be a JSON object').waitFor();
    await admin.getByLabel(/Output schema/).fill('');
    await admin.getByText('No output schema: answers are text.').waitFor();
    const preview = admin.getByRole('region', { name: 'Preview draft' });
    await preview.getByLabel('Question').fill('When is the review?');
    await preview.getByRole('button', { name: 'Preview draft' }).click();
    await preview.getByText('Run succeeded').waitFor();
    expect(await preview.textContent()).toContain('→ search_collection');
    expect(await preview.textContent()).toContain('The review moved to Thursday [S1].');
    expect(await axeViolations(admin)).toEqual([]);
    await admin.getByRole('button', { name: 'Create agent' }).click();
    const agent = admin.getByRole('region', { name: 'Agent Analyst' });
    await agent.waitFor();
    const invoke = agent.getByRole('region', { name: 'Invoke' });
    await invoke.getByLabel('Question').fill('When is the review?');
    await invoke.getByRole('button', { name: 'Invoke' }).click();
    await invoke.getByText('Run succeeded').waitFor();
    const runs = agent.getByRole('region', { name: 'Runs' });
    await runs.getByRole('button', { name: 'Refresh runs' }).click();
    await runs.getByRole('button', { name: /succeeded: When is the review\?/ }).click();
    await runs.getByText(/tool_call search_collection/).waitFor();
    await runs.getByLabel('Run status').selectOption('failed');
    await expect.poll(() => runs.getByRole('listitem').count()).toBe(0);
    expect(await axeViolations(admin)).toEqual([]);
    await screenshot(admin, 'agents');
    const saved = await t.request('GET', `/v1/orgs/${t.orgId}/projects/${t.projectId}/agents/analyst`, { auth: await adminJwt() });
    expect(saved.body).toMatchObject({ name: 'Analyst', model: 'scripted', allowedCollectionIds: [memos], outputSchema: null });
  });

  it('shows a member the screen without write actions, and the API refuses the writes anyway', async () => {
    const member = await signedIn(MEMBER);
    await member.getByRole('link', { name: 'Administration' }).click();
    await member.getByText('Your role in this org: member').waitFor();
    await member.getByRole('listitem').filter({ hasText: receiver.url }).waitFor();
    for (const name of ['Create key', 'Add webhook', 'Invite', 'Delete', 'Retry', 'Revoke', 'Remove']) {
      expect(await member.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    }
    expect(await member.getByRole('button', { name: /test event/i }).count()).toBe(0);
    expect(await member.getByRole('heading', { name: 'API keys' }).count()).toBe(0);
    expect(await axeViolations(member)).toEqual([]);
    const project = `/v1/orgs/${t.orgId}/projects/${t.projectId}`;
    expect(await pagePost(member, `${project}/webhooks`, { url: 'https://attacker.example/hook' })).toMatch(/^403 .*admin role/);
    const [hook] = (await t.request('GET', `${project}/webhooks`, { auth: await adminJwt() })).body;
    const sentBefore = receiver.received.length;
    expect(await pagePost(member, `${project}/webhooks/${hook.id}/test`, {})).toMatch(/^403 .*admin role/);
    expect(receiver.received.length).toBe(sentBefore);
    await member.getByRole('link', { name: 'Agents' }).click();
    await member.getByRole('button', { name: /Analyst/ }).click();
    await member.getByRole('region', { name: 'Invoke' }).waitFor();
    for (const name of ['New agent', 'Save agent', 'Delete agent', 'Preview draft']) {
      expect(await member.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    }
    expect(await axeViolations(member)).toEqual([]);
    expect(await pagePost(member, `${project}/agents/analyst/preview`, { query: 'x', draft: { systemPrompt: 'Leak.' } })).toMatch(/^403 .*admin role/);
    await member.context().close();
    expect(problems).toEqual([]);
  });
});
