import type { ORG_ROLES } from '@dossier/core/vocabulary';
import { useQuery } from '@tanstack/react-query';
import { type ReactNode, useEffect, useId, useRef } from 'react';
import { api, unwrap } from '../api.ts';
import { useSession } from '../session.tsx';

/** Shared pieces of the part-2 screens (issue 37): the caller's role in the org, confirmations, errors. */

export type OrgRole = (typeof ORG_ROLES)[number];

/**
 * The signed-in person's role in the chosen org, from the member list (any member may read it). The interface
 * hides write actions from members; the API enforces the same rule on its own.
 */
export function useOrgRole(): { role: OrgRole | null; isAdmin: boolean; orgId: string; projectId: string } {
  const { user, sandbox } = useSession();
  const orgId = sandbox?.orgId ?? '';
  const members = useQuery({
    queryKey: ['members', orgId],
    enabled: Boolean(orgId),
    queryFn: async () => unwrap(await api.GET('/v1/orgs/{orgId}/members', { params: { path: { orgId } } })),
  });
  const role = members.data?.find((m) => m.accountId === user?.id)?.role ?? null;
  return { role, isAdmin: role === 'admin', orgId, projectId: sandbox?.projectId ?? '' };
}

/**
 * A modal confirmation for a destructive action: it says what will be removed, focuses Cancel first, and closes
 * on Escape (the native dialog's behaviour).
 */
export function ConfirmDialog(props: { title: string; children: ReactNode; confirmLabel: string; onConfirm(): void; onCancel(): void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  return (
    <dialog ref={ref} aria-labelledby={titleId} className="confirm" onCancel={props.onCancel}>
      <h2 id={titleId}>{props.title}</h2>
      <div>{props.children}</div>
      <div className="actions">
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="button" className="danger" onClick={props.onConfirm}>
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

export function ErrorLine({ error }: { error: Error | null | undefined }) {
  if (!error) return null;
  return (
    <p role="alert" className="error">
      {error.message}
    </p>
  );
}

export function when(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '—';
}
