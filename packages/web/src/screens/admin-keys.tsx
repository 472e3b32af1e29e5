import { ENVS } from '@dossier/core/vocabulary';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, type Env, oneOf, type Schemas, unwrap } from '../api.ts';
import { ConfirmDialog, ErrorLine, when } from './common.tsx';

type ApiKey = Schemas['ApiKey'];
type CreatedKey = Schemas['CreatedApiKey'];

/** A new key, shown once: the server never returns it again. */
function ShownOnce({ created, onDone }: { created: CreatedKey; onDone(): void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(created.key);
    setCopied(true);
  };
  return (
    <section className="shown-once" aria-label="New key">
      <p>
        <strong>Copy this key now: it is shown only once.</strong>
      </p>
      <code data-testid="new-key">{created.key}</code>
      <div className="actions">
        <button type="button" onClick={() => void copy()}>
          Copy key
        </button>
        {copied && <span role="status">Copied to the clipboard.</span>}
        <button type="button" onClick={onDone}>
          Done, hide it
        </button>
      </div>
    </section>
  );
}

type Pending = { kind: 'rotate' | 'revoke'; key: ApiKey } | null;

/** The project's API keys (admins only: the routes take the admin role): create, rotate, revoke. */
export function ApiKeysSection({ orgId, projectId }: { orgId: string; projectId: string }) {
  const queries = useQueryClient();
  const path = { orgId, projectId };
  const keys = useQuery({
    queryKey: ['api-keys', projectId],
    queryFn: async () => unwrap(await api.GET('/v1/orgs/{orgId}/projects/{projectId}/api-keys', { params: { path } })),
  });
  const [shown, setShown] = useState<CreatedKey | null>(null);
  const [pending, setPending] = useState<Pending>(null);
  const refresh = () => queries.invalidateQueries({ queryKey: ['api-keys', projectId] });
  const create = useMutation({
    mutationFn: async (body: { name?: string; env: Env }) =>
      unwrap(await api.POST('/v1/orgs/{orgId}/projects/{projectId}/api-keys', { params: { path }, body })),
    onSuccess: (created) => {
      setShown(created);
      void refresh();
    },
  });
  const act = useMutation({
    mutationFn: async ({ kind, key }: { kind: 'rotate' | 'revoke'; key: ApiKey }) => {
      const p = { params: { path: { ...path, keyId: key.id } } };
      if (kind === 'rotate') return unwrap(await api.POST('/v1/orgs/{orgId}/projects/{projectId}/api-keys/{keyId}/rotate', p));
      const res = await api.DELETE('/v1/orgs/{orgId}/projects/{projectId}/api-keys/{keyId}', p);
      if (!res.response.ok) unwrap(res);
      return null;
    },
    onSuccess: (created) => {
      if (created) setShown(created);
      setPending(null);
      void refresh();
    },
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const name = String(f.get('name') ?? '').trim();
    create.mutate({ env: oneOf(ENVS, f.get('env'), 'test'), ...(name ? { name } : {}) });
  };
  return (
    <section aria-labelledby="keys-h">
      <h2 id="keys-h">API keys</h2>
      <form className="inline" onSubmit={submit}>
        <label>
          Key name
          <input name="name" maxLength={100} />
        </label>
        <label>
          Key sandbox
          <select name="env" defaultValue="test">
            {ENVS.map((env) => (
              <option key={env} value={env}>
                {env}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={create.isPending}>
          Create key
        </button>
      </form>
      <ErrorLine error={create.error ?? act.error ?? keys.error} />
      {shown && <ShownOnce created={shown} onDone={() => setShown(null)} />}
      <KeysTable keys={keys.data ?? []} onAction={(kind, key) => setPending({ kind, key })} />
      {pending && (
        <ConfirmDialog
          title={pending.kind === 'rotate' ? 'Rotate this key?' : 'Revoke this key?'}
          confirmLabel={pending.kind === 'rotate' ? 'Rotate key' : 'Revoke key'}
          onCancel={() => setPending(null)}
          onConfirm={() => act.mutate(pending)}
        >
          <p>
            The key {pending.key.name ?? ''} ending in …{pending.key.lastFour} ({pending.key.env}) stops working at once: every program using it will be
            refused.
            {pending.kind === 'rotate' ? ' A new key replaces it, shown once.' : ' This cannot be undone.'}
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function KeysTable({ keys, onAction }: { keys: ApiKey[]; onAction(kind: 'rotate' | 'revoke', key: ApiKey): void }) {
  if (keys.length === 0) return <p className="muted">No keys yet.</p>;
  return (
    <table className="grid">
      <caption className="visually-hidden">API keys</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Key</th>
          <th scope="col">Sandbox</th>
          <th scope="col">Created</th>
          <th scope="col">Last used</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {keys.map((k) => (
          <tr key={k.id}>
            <td>{k.name ?? '—'}</td>
            <td>
              <code>
                {k.prefix}…{k.lastFour}
              </code>
            </td>
            <td>{k.env}</td>
            <td>{when(k.createdAt)}</td>
            <td>{when(k.lastUsedAt)}</td>
            <td>
              {k.revokedAt ? (
                <span>revoked {when(k.revokedAt)}</span>
              ) : (
                <span className="actions">
                  <button type="button" onClick={() => onAction('rotate', k)} aria-label={`Rotate key …${k.lastFour}`}>
                    Rotate
                  </button>
                  <button type="button" className="danger" onClick={() => onAction('revoke', k)} aria-label={`Revoke key …${k.lastFour}`}>
                    Revoke
                  </button>
                </span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
