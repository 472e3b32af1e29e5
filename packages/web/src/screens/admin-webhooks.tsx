import { EVENT_TYPES } from '@dossier/core/vocabulary';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, type Schemas, unwrap } from '../api.ts';
import { ConfirmDialog, ErrorLine, when } from './common.tsx';

type Endpoint = Schemas['WebhookEndpoint'];
type Delivery = Schemas['WebhookDelivery'];
/** The event types an endpoint may subscribe to (`webhook.test` is sent on request only, whatever it subscribes to). */
const EVENTS = EVENT_TYPES.filter((type) => type !== 'webhook.test');

/** Webhook endpoints of the project, each with its delivery log; admins create, delete and retry. */
export function WebhooksSection({ orgId, projectId, isAdmin }: { orgId: string; projectId: string; isAdmin: boolean }) {
  const queries = useQueryClient();
  const path = { orgId, projectId };
  const endpoints = useQuery({
    queryKey: ['webhooks', projectId],
    queryFn: async () => unwrap(await api.GET('/v1/orgs/{orgId}/projects/{projectId}/webhooks', { params: { path } })),
  });
  const [secret, setSecret] = useState<string | null>(null);
  const [removing, setRemoving] = useState<Endpoint | null>(null);
  const refresh = () => queries.invalidateQueries({ queryKey: ['webhooks', projectId] });
  const create = useMutation({
    mutationFn: async (body: NewWebhook) => unwrap(await api.POST('/v1/orgs/{orgId}/projects/{projectId}/webhooks', { params: { path }, body })),
    onSuccess: (created) => {
      setSecret(created.secret ?? null);
      void refresh();
    },
  });
  const remove = useMutation({
    mutationFn: async (endpoint: Endpoint) => {
      const res = await api.DELETE('/v1/orgs/{orgId}/projects/{projectId}/webhooks/{endpointId}', { params: { path: { ...path, endpointId: endpoint.id } } });
      if (!res.response.ok) unwrap(res);
    },
    onSuccess: () => {
      setRemoving(null);
      void refresh();
    },
  });
  return (
    <section aria-labelledby="hooks-h">
      <h2 id="hooks-h">Webhooks</h2>
      {isAdmin && <WebhookForm pending={create.isPending} onCreate={(body) => create.mutate(body)} />}
      <ErrorLine error={create.error ?? remove.error ?? endpoints.error} />
      {secret && (
        <section className="shown-once" aria-label="Signing secret">
          <p>
            <strong>Signing secret, shown only once:</strong> <code>{secret}</code>
          </p>
          <button type="button" onClick={() => setSecret(null)}>
            Done, hide it
          </button>
        </section>
      )}
      {endpoints.data?.length === 0 && <p className="muted">No webhooks yet.</p>}
      <ul className="cards">
        {endpoints.data?.map((endpoint) => (
          <li key={endpoint.id} className="card">
            <h3 className="url">{endpoint.url}</h3>
            <p className="muted">{endpoint.events.length ? endpoint.events.join(', ') : 'all events'}</p>
            {isAdmin && (
              <div className="actions">
                <TestEventButton orgId={orgId} projectId={projectId} endpoint={endpoint} />
                <button type="button" className="danger" onClick={() => setRemoving(endpoint)} aria-label={`Delete webhook ${endpoint.url}`}>
                  Delete
                </button>
              </div>
            )}
            <Deliveries orgId={orgId} projectId={projectId} endpoint={endpoint} isAdmin={isAdmin} />
          </li>
        ))}
      </ul>
      {removing && (
        <ConfirmDialog title="Delete this webhook?" confirmLabel="Delete webhook" onCancel={() => setRemoving(null)} onConfirm={() => remove.mutate(removing)}>
          <p>{removing.url} stops receiving events, and its delivery log is removed with it.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

type NewWebhook = { url: string; events: (typeof EVENTS)[number][]; receiveTestEvents: boolean };

/** The form adding an endpoint: URL, events (none: all), and whether test-sandbox events are delivered too. */
function WebhookForm({ pending, onCreate }: { pending: boolean; onCreate(body: NewWebhook): void }) {
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const events = EVENTS.filter((ev) => f.get(`event-${ev}`) === 'on');
    onCreate({ url: String(f.get('url') ?? '').trim(), events, receiveTestEvents: f.get('receiveTestEvents') === 'on' });
  };
  return (
    <form className="stack" onSubmit={submit}>
      <label>
        Endpoint URL (HTTPS)
        <input name="url" type="url" required />
      </label>
      <fieldset>
        <legend>Events (none chosen: all events)</legend>
        {EVENTS.map((ev) => (
          <label key={ev} className="check">
            <input type="checkbox" name={`event-${ev}`} /> {ev}
          </label>
        ))}
      </fieldset>
      <label className="check">
        <input type="checkbox" name="receiveTestEvents" /> Also deliver test-sandbox events
      </label>
      <button type="submit" disabled={pending}>
        Add webhook
      </button>
    </form>
  );
}

/** The line saying how a test delivery went: the receiver's status and the start of its answer, or why none came. */
function testOutcome(delivery: Delivery): string {
  const answer = (delivery.responseBody ?? '').slice(0, 120);
  if (delivery.status === 'success') return `Test event delivered: the endpoint answered ${delivery.responseStatus}${answer ? ` (${answer})` : ''}.`;
  if (delivery.responseStatus !== undefined) return `Test event failed: the endpoint answered ${delivery.responseStatus}${answer ? ` (${answer})` : ''}.`;
  return `Test event failed: ${answer || 'no answer'}.`;
}

/** Admins send a signed `webhook.test` event to the endpoint and see the receiver's answer; it joins the log. */
function TestEventButton({ orgId, projectId, endpoint }: { orgId: string; projectId: string; endpoint: Endpoint }) {
  const queries = useQueryClient();
  const send = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/v1/orgs/{orgId}/projects/{projectId}/webhooks/{endpointId}/test', { params: { path: { orgId, projectId, endpointId: endpoint.id } } }),
      ),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['deliveries', endpoint.id] }),
  });
  return (
    <>
      <button type="button" onClick={() => send.mutate()} disabled={send.isPending} aria-label={`Send test event to ${endpoint.url}`}>
        Send test event
      </button>
      <ErrorLine error={send.error} />
      {send.data && (
        <p role="status" className={`status ${send.data.status}`}>
          {testOutcome(send.data)}
        </p>
      )}
    </>
  );
}

/** An endpoint's delivery log: status, attempts, the last response (status and excerpt); retry a failed one. */
function Deliveries({ orgId, projectId, endpoint, isAdmin }: { orgId: string; projectId: string; endpoint: Endpoint; isAdmin: boolean }) {
  const queries = useQueryClient();
  const path = { orgId, projectId, endpointId: endpoint.id };
  const key = ['deliveries', endpoint.id];
  const deliveries = useQuery({
    queryKey: key,
    queryFn: async () =>
      unwrap(await api.GET('/v1/orgs/{orgId}/projects/{projectId}/webhooks/{endpointId}/deliveries', { params: { path, query: { limit: 50 } } })),
  });
  const retry = useMutation({
    mutationFn: async (delivery: Delivery) =>
      unwrap(
        await api.POST('/v1/orgs/{orgId}/projects/{projectId}/webhooks/{endpointId}/deliveries/{id}/retry', { params: { path: { ...path, id: delivery.id } } }),
      ),
    onSuccess: () => queries.invalidateQueries({ queryKey: key }),
  });
  return (
    <details>
      <summary>Delivery log ({deliveries.data?.length ?? '…'})</summary>
      <ErrorLine error={deliveries.error ?? retry.error} />
      <button type="button" onClick={() => void deliveries.refetch()}>
        Refresh log
      </button>
      <table className="grid">
        <caption className="visually-hidden">Deliveries to {endpoint.url}</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last response</th>
            <th scope="col">When</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.data?.map((d) => (
            <tr key={d.id}>
              <td>{d.eventType}</td>
              <td className={`status ${d.status}`}>{d.status}</td>
              <td>{d.attempts}</td>
              <td>
                {d.responseStatus ?? '—'} <span className="excerpt">{(d.responseBody ?? '').slice(0, 120)}</span>
              </td>
              <td>{when(d.lastAttemptAt ?? d.createdAt)}</td>
              <td>
                {isAdmin && d.status === 'failed' && (
                  <button type="button" onClick={() => retry.mutate(d)} disabled={retry.isPending}>
                    Retry
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
