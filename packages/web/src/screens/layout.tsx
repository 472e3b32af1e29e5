import { useQuery } from '@tanstack/react-query';
import { Link, Outlet } from '@tanstack/react-router';
import { type FormEvent, useEffect, useId, useState } from 'react';
import { api, type Env, unwrap } from '../api.ts';
import { useSession } from '../session.tsx';

/** The frame of every screen: sign-in when signed out; otherwise the header with the sandbox picker, then the screen. */
export function Layout() {
  const { user, loading, sandbox } = useSession();
  if (loading) return <p className="page">Loading…</p>;
  if (!user) return <SignIn />;
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className={`top ${sandbox?.env === 'live' ? 'live' : 'test'}`}>
        <Link to="/" className="brand">
          Dossier
        </Link>
        <SandboxPicker />
        <nav aria-label="Project">
          <Link to="/agents">Agents</Link> <Link to="/admin">Administration</Link>
        </nav>
        <Account email={user.email} />
      </header>
      <main id="main" className="page">
        {sandbox?.projectId ? <Outlet /> : <p>Choose an org, a project and a sandbox above to begin.</p>}
      </main>
    </>
  );
}

/** The sign-in screen: the identity providers the server offers (single sign-on), and the password form unless it is off. */
function SignIn() {
  const choices = useQuery({ queryKey: ['sign-in-choices'], retry: false, queryFn: async () => unwrap(await api.GET('/v1/auth/sso/providers')) });
  const providers = choices.data?.providers ?? [];
  return (
    <main id="main" className="signin">
      <h1>Sign in to Dossier</h1>
      {choices.isPending ? <p>Loading…</p> : choices.data?.passwordSignIn !== false && <PasswordSignIn />}
      {providers.length > 0 && (
        <section aria-labelledby="sso-heading" className="sso">
          <h2 id="sso-heading">Single sign-on</h2>
          <ul>
            {providers.map((provider) => (
              <li key={provider.id}>
                {/* A full-page navigation: the provider's page, then back to the server, which sets the session cookie. */}
                <a className="button" href={`/auth/sso/${encodeURIComponent(provider.id)}/start?then=dashboard`}>
                  Sign in with {provider.name}
                </a>
              </li>
            ))}
          </ul>
        </section>
      )}
    </main>
  );
}

function PasswordSignIn() {
  const { signIn } = useSession();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    try {
      await signIn(String(form.get('email')), String(form.get('password')));
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit}>
      <label>
        E-mail
        <input name="email" type="email" autoComplete="username" required />
      </label>
      <label>
        Password
        <input name="password" type="password" autoComplete="current-password" required />
      </label>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}

/** Org, project and sandbox, always visible; the live sandbox is marked so no one edits production by mistake. */
function SandboxPicker() {
  const { sandbox, chooseSandbox } = useSession();
  const ids = { org: useId(), project: useId(), env: useId() };
  const orgs = useQuery({ queryKey: ['orgs'], queryFn: async () => unwrap(await api.GET('/v1/orgs')) });
  const orgId = sandbox?.orgId ?? orgs.data?.[0]?.id ?? '';
  const projects = useQuery({
    queryKey: ['projects', orgId],
    enabled: Boolean(orgId),
    queryFn: async () => unwrap(await api.GET('/v1/orgs/{orgId}/projects', { params: { path: { orgId } } })),
  });
  const projectId = sandbox?.projectId ?? '';
  const env: Env = sandbox?.env ?? 'test';
  const firstProject = projects.data?.[0]?.id;
  useEffect(() => {
    if (!projectId && orgId && firstProject) chooseSandbox({ orgId, projectId: firstProject, env });
  }, [projectId, orgId, firstProject, env, chooseSandbox]);
  return (
    <nav className="picker" aria-label="Org, project and sandbox">
      <label htmlFor={ids.org}>Org</label>
      <select id={ids.org} value={orgId} onChange={(e) => chooseSandbox({ orgId: e.target.value, projectId: '', env })}>
        {orgs.data?.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name}
          </option>
        ))}
      </select>
      <label htmlFor={ids.project}>Project</label>
      <select id={ids.project} value={projectId} onChange={(e) => chooseSandbox({ orgId, projectId: e.target.value, env })}>
        {!projectId && <option value="">Choose…</option>}
        {projects.data?.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </select>
      <label htmlFor={ids.env}>Sandbox</label>
      <select id={ids.env} value={env} onChange={(e) => chooseSandbox({ orgId, projectId, env: e.target.value as Env })}>
        <option value="test">test</option>
        <option value="live">live (production)</option>
      </select>
      <span className={`badge ${env}`} role="status">
        {env === 'live' ? 'LIVE data' : 'Test sandbox'}
      </span>
    </nav>
  );
}

function Account({ email }: { email: string }) {
  const { signOut } = useSession();
  return (
    <div className="account">
      <span>{email}</span>
      <button type="button" onClick={() => void signOut()}>
        Sign out
      </button>
      <button type="button" onClick={() => void signOut(true)}>
        Sign out everywhere
      </button>
    </div>
  );
}
