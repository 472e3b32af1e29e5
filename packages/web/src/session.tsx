import { ENVS } from '@dossier/core/vocabulary';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from 'react';
import { api, connection, type Env, unwrap } from './api.ts';

/**
 * Who is signed in and where the dashboard acts (org, project, live or test sandbox). The session itself is the
 * httpOnly cookie: after a reload, GET /v1/dashboard/session says who it is and hands back its CSRF token.
 */

export interface Sandbox {
  orgId: string;
  projectId: string;
  env: Env;
}

interface SessionValue {
  user: { id: string; email: string } | null;
  loading: boolean;
  sandbox: Sandbox | null;
  chooseSandbox(sandbox: Sandbox): void;
  signIn(email: string, password: string): Promise<void>;
  signOut(everywhere?: boolean): Promise<void>;
}

const SessionContext = createContext<SessionValue | null>(null);
const SANDBOX_KEY = 'dossier.sandbox';

function savedSandbox(): Sandbox | null {
  try {
    const value = JSON.parse(localStorage.getItem(SANDBOX_KEY) ?? 'null') as Sandbox | null;
    return value && (ENVS as readonly string[]).includes(value.env) ? value : null;
  } catch {
    return null;
  }
}

function applySandbox(sandbox: Sandbox | null): void {
  connection.projectId = sandbox?.projectId ?? null;
  connection.env = sandbox?.env ?? 'test';
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const queries = useQueryClient();
  const [sandbox, setSandbox] = useState<Sandbox | null>(() => {
    const saved = savedSandbox();
    applySandbox(saved);
    return saved;
  });
  const session = useQuery({
    queryKey: ['session'],
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    queryFn: async () => {
      const result = await api.GET('/v1/dashboard/session');
      if (result.response.status === 401) return null;
      const value = unwrap(result);
      connection.csrf = value.csrfToken;
      return value.user;
    },
  });

  const chooseSandbox = useCallback(
    (next: Sandbox) => {
      applySandbox(next);
      localStorage.setItem(SANDBOX_KEY, JSON.stringify(next));
      setSandbox(next);
      queries.removeQueries({ predicate: (q) => q.queryKey[0] !== 'session' && q.queryKey[0] !== 'orgs' && q.queryKey[0] !== 'projects' });
    },
    [queries],
  );

  const signIn = useCallback(
    async (email: string, password: string) => {
      const value = unwrap(await api.POST('/v1/dashboard/session', { body: { email, password } }));
      connection.csrf = value.csrfToken;
      queries.setQueryData(['session'], value.user);
    },
    [queries],
  );

  const signOut = useCallback(
    async (everywhere = false) => {
      if (everywhere) unwrap(await api.POST('/v1/auth/logout-all'));
      await api.DELETE('/v1/dashboard/session');
      connection.csrf = null;
      queries.setQueryData(['session'], null);
      queries.removeQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
    },
    [queries],
  );

  const value = useMemo<SessionValue>(
    () => ({ user: session.data ?? null, loading: session.isPending, sandbox, chooseSandbox, signIn, signOut }),
    [session.data, session.isPending, sandbox, chooseSandbox, signIn, signOut],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}
