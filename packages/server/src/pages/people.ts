import { errorMessage, type Html, hiddenFields, html, page } from './html.ts';

/** Pages of people on a team (issue 42): accepting an invitation, choosing a new password, signed in with SSO. */

/** A sign-in button per identity provider; `query` carries what to resume after sign-in (the consent flow's request). */
export function ssoButtons(providers: { id: string; name: string }[], query = ''): Html {
  if (providers.length === 0) return html``;
  return html`<h2>Single sign-on</h2>
<ul>
${providers.map((p) => html`<li><a href="/auth/sso/${encodeURIComponent(p.id)}/start${query ? `?${query}` : ''}">Sign in with ${p.name}</a></li>\n`)}</ul>`;
}

/** What the invitation page needs. */
export interface InvitationPageView {
  token: string;
  orgName: string;
  email: string;
  role: string;
  hasAccount: boolean;
  passwordSignIn: boolean;
  providers: { id: string; name: string }[];
  /** What single sign-on resumes (`then=dashboard` where the server serves it), as a query. */
  ssoQuery?: string;
  error?: string;
}

const passwordField = (id: string, label: string, autocomplete: string, hint: string, error: boolean) => html`<label for="${id}">${label}</label>
<input id="${id}" name="${id}" type="password" autocomplete="${autocomplete}" required aria-describedby="${id}-hint${error ? ' form-error' : ''}">
<span id="${id}-hint" class="hint">${hint}</span>`;

/** GET /invite: join the org by choosing a password (or giving the existing account's), or by single sign-on. */
export function invitationPage(view: InvitationPageView): Html {
  const form = view.passwordSignIn
    ? html`<form method="post" action="/invite">
${hiddenFields({ token: view.token })}
${
  view.hasAccount
    ? passwordField(
        'password',
        'Password of your account',
        'current-password',
        `${view.email} already has an account here: its password accepts the invitation.`,
        Boolean(view.error),
      )
    : passwordField('password', 'Choose a password', 'new-password', '12 characters or more; not a common password; not your e-mail.', Boolean(view.error))
}
<button type="submit" class="primary">Accept the invitation</button>
</form>`
    : html``;
  return page(
    'Accept the invitation',
    html`<h1>Join ${view.orgName} on Dossier</h1>
<p>This invitation is for <strong>${view.email}</strong>, as <strong>${view.role}</strong>.</p>
${errorMessage('form-error', view.error)}
${form}
${ssoButtons(view.providers, view.ssoQuery)}
${view.providers.length > 0 ? html`<p class="hint">Signing in with single sign-on as ${view.email} accepts the invitation too.</p>` : ''}`,
  );
}

/** GET /reset-password: choose a new password with a reset link. */
export function resetPage(token: string, error?: string): Html {
  return page(
    'Choose a new password',
    html`<h1>Choose a new password</h1>
${errorMessage('form-error', error)}
<form method="post" action="/reset-password">
${hiddenFields({ token })}
${passwordField('newPassword', 'New password', 'new-password', '12 characters or more; not a common password. Every session of your account ends.', Boolean(error))}
<button type="submit" class="primary">Set the password</button>
</form>`,
  );
}

/** A link that cannot be used (or an outcome): a heading, a message and maybe a link onwards. */
export function messagePage(title: string, message: string, kind: 'error' | 'status' = 'status', onwards?: { href: string; label: string }): Html {
  return page(
    title,
    html`<h1>${title}</h1>
<p class="${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${message}</p>
${onwards ? html`<p><a href="${onwards.href}">${onwards.label}</a></p>` : ''}`,
  );
}

/** After single sign-on without a consent flow to resume: a management token for the API and the CLI. */
export function signedInPage(email: string, token: string): Html {
  return page(
    'Signed in',
    html`<h1>Signed in as ${email}</h1>
<p class="status" role="status">You are signed in. This management token works for one hour, until you sign out everywhere:</p>
<label for="token">Token</label>
<input id="token" type="password" readonly value="${token}" aria-describedby="token-hint">
<span id="token-hint" class="hint">Use it with the CLI (<code>--token</code> or <code>SERVICE_TOKEN</code>) or as <code>Authorization: Bearer</code> on the API.</span>`,
  );
}
