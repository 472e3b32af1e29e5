import { ORG_ROLES } from '@dossier/core/vocabulary';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, oneOf, type Schemas, unwrap } from '../api.ts';
import { ApiKeysSection } from './admin-keys.tsx';
import { ProviderKeysSection } from './admin-provider-keys.tsx';
import { UsageSection } from './admin-usage.tsx';
import { WebhooksSection } from './admin-webhooks.tsx';
import { ConfirmDialog, ErrorLine, type OrgRole, useOrgRole, when } from './common.tsx';

/**
 * Project administration (issue 37): members and invitations, API keys, webhooks with their deliveries, connected
 * MCP clients and the usage meters. Members see what they may read; write actions are shown to admins only.
 */
export function AdminPage() {
  const { role, isAdmin, orgId, projectId } = useOrgRole();
  return (
    <>
      <h1>Project administration</h1>
      <p className="muted">Your role in this org: {role ?? '…'}</p>
      <UsageSection />
      <MembersSection orgId={orgId} isAdmin={isAdmin} />
      {isAdmin && <ApiKeysSection orgId={orgId} projectId={projectId} />}
      <ProviderKeysSection projectId={projectId} />
      <WebhooksSection orgId={orgId} projectId={projectId} isAdmin={isAdmin} />
      {isAdmin && <McpClientsSection orgId={orgId} projectId={projectId} />}
    </>
  );
}

type Member = Schemas['OrgMember'];

/** Members and their roles; admins change roles, remove members, invite and revoke invitations. */
function MembersSection({ orgId, isAdmin }: { orgId: string; isAdmin: boolean }) {
  const queries = useQueryClient();
  const members = useQuery({
    queryKey: ['members', orgId],
    queryFn: async () => unwrap(await api.GET('/v1/orgs/{orgId}/members', { params: { path: { orgId } } })),
  });
  const [removing, setRemoving] = useState<Member | null>(null);
  const refresh = () => queries.invalidateQueries({ queryKey: ['members', orgId] });
  const setRole = useMutation({
    mutationFn: async (body: { email: string; role: OrgRole }) => unwrap(await api.PUT('/v1/orgs/{orgId}/members', { params: { path: { orgId } }, body })),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: async (member: Member) => {
      const res = await api.DELETE('/v1/orgs/{orgId}/members/{accountId}', { params: { path: { orgId, accountId: member.accountId } } });
      if (!res.response.ok) unwrap(res);
    },
    onSuccess: () => {
      setRemoving(null);
      void refresh();
    },
  });
  return (
    <section aria-labelledby="members-h">
      <h2 id="members-h">Members</h2>
      <ErrorLine error={members.error ?? setRole.error ?? remove.error} />
      <table className="grid">
        <caption className="visually-hidden">Members of the org</caption>
        <thead>
          <tr>
            <th scope="col">E-mail</th>
            <th scope="col">Role</th>
            {isAdmin && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {members.data?.map((m) => (
            <tr key={m.accountId}>
              <td>{m.email}</td>
              <td>
                {isAdmin ? (
                  <select
                    aria-label={`Role of ${m.email}`}
                    value={m.role}
                    onChange={(e) => setRole.mutate({ email: m.email, role: oneOf(ORG_ROLES, e.target.value, m.role) })}
                  >
                    {ORG_ROLES.map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
                  </select>
                ) : (
                  m.role
                )}
              </td>
              {isAdmin && (
                <td>
                  <button type="button" className="danger" onClick={() => setRemoving(m)} aria-label={`Remove ${m.email}`}>
                    Remove
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {isAdmin && <InvitationsPanel orgId={orgId} />}
      {removing && (
        <ConfirmDialog title="Remove this member?" confirmLabel="Remove member" onCancel={() => setRemoving(null)} onConfirm={() => remove.mutate(removing)}>
          <p>{removing.email} loses access to every project of this org. Their account itself is kept.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** Pending invitations (admin): invite by e-mail (the link is shown once), revoke one. */
function InvitationsPanel({ orgId }: { orgId: string }) {
  const queries = useQueryClient();
  const key = ['invitations', orgId];
  const invitations = useQuery({ queryKey: key, queryFn: async () => unwrap(await api.GET('/v1/orgs/{orgId}/invitations', { params: { path: { orgId } } })) });
  const [link, setLink] = useState<string | null>(null);
  const invite = useMutation({
    mutationFn: async (body: { email: string; role: OrgRole }) =>
      unwrap(await api.POST('/v1/orgs/{orgId}/invitations', { params: { path: { orgId } }, body: { ...body, sendEmail: false } })),
    onSuccess: (created) => {
      setLink(created.url);
      void queries.invalidateQueries({ queryKey: key });
    },
  });
  const revoke = useMutation({
    mutationFn: async (id: string) => {
      const res = await api.DELETE('/v1/orgs/{orgId}/invitations/{invitationId}', { params: { path: { orgId, invitationId: id } } });
      if (!res.response.ok) unwrap(res);
    },
    onSuccess: () => queries.invalidateQueries({ queryKey: key }),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    invite.mutate({ email: String(f.get('email') ?? ''), role: oneOf(ORG_ROLES, f.get('role'), 'member') });
  };
  return (
    <div>
      <h3>Invitations</h3>
      <form className="inline" onSubmit={submit}>
        <label>
          Invite e-mail
          <input name="email" type="email" required />
        </label>
        <label>
          Invite as
          <select name="role" defaultValue="member">
            <option value="member">member</option>
            <option value="admin">admin</option>
          </select>
        </label>
        <button type="submit">Invite</button>
      </form>
      <ErrorLine error={invitations.error ?? invite.error ?? revoke.error} />
      {link && (
        <p role="status">
          Invitation link (shown once): <code>{link}</code>
        </p>
      )}
      <ul>
        {invitations.data?.map((i) => (
          <li key={i.id}>
            {i.email} as {i.role}, expires {when(i.expiresAt)}{' '}
            <button type="button" onClick={() => revoke.mutate(i.id)} aria-label={`Revoke invitation of ${i.email}`}>
              Revoke invitation
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

type McpClient = {
  id: string;
  clientName: string | null;
  clientId: string;
  env: string;
  scopes: string[];
  account: { email: string | null };
  lastUsedAt: string | null;
};

/** MCP clients connected to the project through OAuth; revoking one ends its access at once. */
function McpClientsSection({ orgId, projectId }: { orgId: string; projectId: string }) {
  const queries = useQueryClient();
  const path = { orgId, projectId };
  const clients = useQuery({
    queryKey: ['mcp-clients', projectId],
    queryFn: async () => unwrap(await api.GET('/v1/orgs/{orgId}/projects/{projectId}/mcp-clients', { params: { path } })),
  });
  const [revoking, setRevoking] = useState<McpClient | null>(null);
  const revoke = useMutation({
    mutationFn: async (client: McpClient) => {
      const res = await api.DELETE('/v1/orgs/{orgId}/projects/{projectId}/mcp-clients/{connectionId}', {
        params: { path: { ...path, connectionId: client.id } },
      });
      if (!res.response.ok) unwrap(res);
    },
    onSuccess: () => {
      setRevoking(null);
      void queries.invalidateQueries({ queryKey: ['mcp-clients', projectId] });
    },
  });
  return (
    <section aria-labelledby="mcp-h">
      <h2 id="mcp-h">Connected MCP clients</h2>
      <ErrorLine error={clients.error ?? revoke.error} />
      {clients.data?.length === 0 && <p className="muted">No assistant is connected.</p>}
      <ul>
        {clients.data?.map((c) => (
          <li key={c.id}>
            {c.clientName ?? c.clientId} for {c.account.email ?? 'an account'} ({c.env}, {c.scopes.join(' ')}), last used {when(c.lastUsedAt)}{' '}
            <button type="button" className="danger" onClick={() => setRevoking(c)}>
              Revoke
            </button>
          </li>
        ))}
      </ul>
      {revoking && (
        <ConfirmDialog
          title="Revoke this connection?"
          confirmLabel="Revoke connection"
          onCancel={() => setRevoking(null)}
          onConfirm={() => revoke.mutate(revoking)}
        >
          <p>
            {revoking.clientName ?? revoking.clientId} loses access to this project at once; its tokens stop working. The assistant must be connected again to
            use Dossier.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
