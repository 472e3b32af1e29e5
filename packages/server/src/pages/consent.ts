import { type CheckedAuthorization, type GrantableSandbox, OAUTH_SCOPE_DESCRIPTIONS, OAUTH_SCOPES, type OAuthScope } from '@dossier/core';
import { errorMessage, type Html, hiddenFields, html, page } from './html.ts';
import { ssoButtons } from './people.ts';

/** The authorization request's parameters, carried as hidden fields through the login and consent forms. */
const requestFields = (request: CheckedAuthorization): Html => hiddenFields({ ...request.params });

const clientLabel = (request: CheckedAuthorization): string => request.client.name ?? 'An application';

/** Where the browser goes after the decision, so the user can spot a client that is not what it claims. */
const returnHost = (request: CheckedAuthorization): string => {
  const target = new URL(request.redirectUri);
  return target.host || `${target.protocol}//`;
};

/** How people sign in on this server (issue 42): identity providers, and whether the password form is shown. */
export interface SignInChoices {
  providers: { id: string; name: string }[];
  passwordSignIn: boolean;
}

/** Step 1: sign in (GET /oauth/authorize, and again after a failed sign-in), with a password or an identity provider. */
export function loginPage(request: CheckedAuthorization, error?: string, choices: SignInChoices = { providers: [], passwordSignIn: true }): Html {
  const described = error ? 'login-error' : undefined;
  const resume = new URLSearchParams(Object.entries(request.params).filter((e): e is [string, string] => typeof e[1] === 'string')).toString();
  return page(
    'Sign in',
    html`<h1>Sign in to connect ${clientLabel(request)}</h1>
<p><strong>${clientLabel(request)}</strong> asks for access to your Dossier documents. Sign in to choose a project and what it may do. Afterwards you return to <code>${returnHost(request)}</code>.</p>
${errorMessage('login-error', error)}
${ssoButtons(choices.providers, resume)}
${choices.passwordSignIn ? passwordForm(request, described) : ''}`,
  );
}

function passwordForm(request: CheckedAuthorization, described: string | undefined): Html {
  return html`<form method="post" action="/oauth/authorize">
${requestFields(request)}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required autofocus ${described ? html`aria-describedby="${described}" aria-invalid="true"` : ''}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required ${described ? html`aria-describedby="${described}"` : ''}>
<button type="submit" class="primary">Sign in</button>
</form>`;
}

const ENV_LABEL = { live: 'live', test: 'test sandbox' } as const;

/** The project picker: one option per sandbox, grouped by org. */
function sandboxSelect(sandboxes: GrantableSandbox[], selected: string | undefined): Html {
  const orgs = [...new Set(sandboxes.map((s) => s.orgName))];
  return html`<label for="sandbox">Project</label>
<select id="sandbox" name="sandbox" required autofocus aria-describedby="sandbox-hint">
${orgs.map(
  (org) => html`<optgroup label="${org}">
${sandboxes
  .filter((s) => s.orgName === org)
  .map((s) => {
    const value = `${s.projectId}:${s.env}`;
    return html`<option value="${value}"${value === selected ? html` selected` : ''}>${s.projectName} (${ENV_LABEL[s.env]})${s.role === 'admin' ? '' : ' · read only'}</option>\n`;
  })}</optgroup>
`,
)}</select>
<span id="sandbox-hint" class="hint">The client sees this project's collections only. Full access needs the admin role in the project's org.</span>`;
}

/** The scope choice: read only, or full access (`granted_scope`: the request's own `scope` travels as a hidden field). */
function scopeChoice(preselected: OAuthScope): Html {
  const titles: Record<OAuthScope, string> = { 'svc:read': 'Read only', 'svc:full': 'Full access' };
  return html`<fieldset>
<legend>What may it do?</legend>
${OAUTH_SCOPES.map(
  (scope) => html`<div class="choice">
<input type="radio" id="scope-${scope.replace(':', '-')}" name="granted_scope" value="${scope}"${scope === preselected ? html` checked` : ''} aria-describedby="scope-${scope.replace(':', '-')}-hint">
<label for="scope-${scope.replace(':', '-')}">${titles[scope]} <code>${scope}</code><span id="scope-${scope.replace(':', '-')}-hint" class="hint">${OAUTH_SCOPE_DESCRIPTIONS[scope]}</span></label>
</div>
`,
)}</fieldset>`;
}

/** What the consent page shows after sign-in. */
export interface ConsentView {
  request: CheckedAuthorization;
  email: string;
  /** The page session of the signed-in user (hidden field). */
  session: string;
  sandboxes: GrantableSandbox[];
  error?: string;
  /** The previous choice, kept when the page is shown again with an error. */
  choice?: { sandbox?: string; scope?: OAuthScope };
}

/** Step 2: choose the project and scope, then allow or deny. */
export function consentPage(view: ConsentView): Html {
  const { request } = view;
  const preselected = view.choice?.scope ?? (request.scopes.includes('svc:full') ? 'svc:full' : 'svc:read');
  const picker =
    view.sandboxes.length > 0
      ? html`${sandboxSelect(view.sandboxes, view.choice?.sandbox)}\n${scopeChoice(preselected)}`
      : html`<p>Your account belongs to no project, so there is nothing to connect. Ask an admin of your org to add you.</p>`;
  return page(
    'Allow access',
    html`<h1>Allow ${clientLabel(request)} to use Dossier?</h1>
<p>Signed in as <strong>${view.email}</strong>. After you decide, you return to <code>${returnHost(request)}</code>.</p>
${errorMessage('consent-error', view.error)}
<form method="post" action="/oauth/authorize/consent">
${requestFields(request)}${hiddenFields({ session: view.session })}
${picker}
${view.sandboxes.length > 0 ? html`<button type="submit" name="decision" value="allow" class="primary">Allow</button>` : ''}
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>
<p class="hint">You can disconnect it at any time on the connected clients page (<code>/oauth/connected-clients</code>).</p>`,
  );
}

/** A request that cannot go back to its client (unknown client, unregistered redirect URI): explain, never redirect. */
export function authorizationErrorPage(description: string): Html {
  return page(
    'Cannot connect',
    html`<h1>This connection request cannot be used</h1>
${errorMessage('request-error', description)}
<p>Start the connection again from your application. If it keeps failing, its registration with this server may be out of date: remove the server from the application and add it again.</p>`,
  );
}
