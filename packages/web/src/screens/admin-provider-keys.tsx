import type { PROVIDER_SPELLINGS } from '@dossier/core/vocabulary';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, type Schemas, unwrap } from '../api.ts';
import { useSession } from '../session.tsx';
import { ConfirmDialog, ErrorLine, when } from './common.tsx';

type ProviderKey = Schemas['ProviderKey'];
type Provider = (typeof PROVIDER_SPELLINGS)[number];

/** The model-provider keys of the chosen sandbox (data plane: every org member may manage them, as the API allows). */
export function ProviderKeysSection({ projectId }: { projectId: string }) {
  const { sandbox } = useSession();
  const queries = useQueryClient();
  const key = ['provider-keys', projectId, sandbox?.env];
  const keys = useQuery({
    queryKey: key,
    queryFn: async () => unwrap(await api.GET('/v1/projects/{id}/provider-keys', { params: { path: { id: projectId } } })),
  });
  const [removing, setRemoving] = useState<ProviderKey | null>(null);
  const add = useMutation({
    mutationFn: async (body: { provider: Provider; name: string; key: string }) =>
      unwrap(await api.POST('/v1/projects/{id}/provider-keys', { params: { path: { id: projectId } }, body })),
    onSuccess: () => queries.invalidateQueries({ queryKey: key }),
  });
  const remove = useMutation({
    mutationFn: async (target: ProviderKey) => {
      const res = await api.DELETE('/v1/projects/{id}/provider-keys/{keyId}', { params: { path: { id: projectId, keyId: target.id } } });
      if (!res.response.ok) unwrap(res);
    },
    onSuccess: () => {
      setRemoving(null);
      void queries.invalidateQueries({ queryKey: key });
    },
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    add.mutate({ provider: String(f.get('provider')) as Provider, name: String(f.get('name') ?? ''), key: String(f.get('key') ?? '') });
    e.currentTarget.reset();
  };
  return (
    <section aria-labelledby="provider-h">
      <h2 id="provider-h">Provider keys ({sandbox?.env} sandbox)</h2>
      <form className="inline" onSubmit={submit}>
        <label>
          Provider
          <select name="provider" defaultValue="anthropic">
            <option value="anthropic">anthropic</option>
            <option value="openai">openai</option>
          </select>
        </label>
        <label>
          Provider key name
          <input name="name" required maxLength={100} />
        </label>
        <label>
          Provider key
          <input name="key" type="password" autoComplete="off" required />
        </label>
        <button type="submit">Add provider key</button>
      </form>
      <ErrorLine error={keys.error ?? add.error ?? remove.error} />
      <ul>
        {keys.data?.map((k) => (
          <li key={k.id}>
            {k.name} ({k.provider}) <code>{k.keyPreview}</code>, added {when(k.createdAt)}{' '}
            <button type="button" className="danger" onClick={() => setRemoving(k)} aria-label={`Delete provider key ${k.name}`}>
              Delete
            </button>
          </li>
        ))}
      </ul>
      {removing && (
        <ConfirmDialog
          title="Delete this provider key?"
          confirmLabel="Delete provider key"
          onCancel={() => setRemoving(null)}
          onConfirm={() => remove.mutate(removing)}
        >
          <p>
            {removing.name} ({removing.provider}) is deleted from this sandbox: its model calls stop using it at once. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
