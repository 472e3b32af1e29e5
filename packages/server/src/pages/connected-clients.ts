import type { ConnectedClient } from '@dossier/core';
import { errorMessage, type Html, hiddenFields, html, page } from './html.ts';
import type { SignInChoices } from './consent.ts';
import { ssoButtons } from './people.ts';

/** A project the signed-in admin manages, with its connected clients. */
export interface ProjectConnections {
  orgId: string;
  orgName: string;
  projectId: string;
  projectName: string;
  clients: ConnectedClient[];
}

/** Sign in to see connected clients (GET /oauth/connected-clients, and again after a failed sign-in). */
export function connectionsLoginPage(error?: string, choices: SignInChoices = { providers: [], passwordSignIn: true }): Html {
  return page(
    'Connected clients',
    html`<h1>Connected clients</h1>
<p>MCP clients (desktop chat apps, IDE agents) you or others connected to your projects. Org admins can see and disconnect them here.</p>
${errorMessage('login-error', error)}
${ssoButtons(choices.providers, 'then=connected-clients')}
${choices.passwordSignIn ? passwordForm(error) : ''}`,
  );
}

function passwordForm(error: string | undefined): Html {
  return html`<form method="post" action="/oauth/connected-clients">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required autofocus${error ? html` aria-describedby="login-error" aria-invalid="true"` : ''}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit" class="primary">Sign in</button>
</form>`;
}

const day = (iso: string | null): string => (iso ? iso.slice(0, 16).replace('T', ' ') : 'never');

function clientRow(project: ProjectConnections, client: ConnectedClient, session: string): Html {
  const name = client.clientName ?? client.clientId;
  return html`<tr>
<td>${name}</td><td>${client.env}</td><td><code>${client.scopes.join(' ')}</code></td><td>${client.account.email ?? client.account.id}</td><td>${day(client.createdAt)}</td><td>${day(client.lastUsedAt)}</td>
<td><form method="post" action="/oauth/connected-clients/revoke">${hiddenFields({ session, orgId: project.orgId, projectId: project.projectId, connectionId: client.id })}<button type="submit" class="secondary" aria-label="Disconnect ${name} (${client.account.email ?? ''}, ${client.env})">Disconnect</button></form></td>
</tr>`;
}

function projectSection(project: ProjectConnections, session: string): Html {
  const title = `${project.orgName} / ${project.projectName}`;
  if (project.clients.length === 0) return html`<h2>${title}</h2>\n<p>No connected clients.</p>`;
  return html`<h2>${title}</h2>
<table>
<caption class="hint">Clients connected to ${title}</caption>
<thead><tr><th scope="col">Client</th><th scope="col">Sandbox</th><th scope="col">Access</th><th scope="col">Connected by</th><th scope="col">Connected (UTC)</th><th scope="col">Last used (UTC)</th><th scope="col"><span class="hint">Action</span></th></tr></thead>
<tbody>
${project.clients.map((client) => clientRow(project, client, session))}
</tbody>
</table>`;
}

/** The list: every project the account administers, each with its clients and a disconnect button per client. */
export function connectionsPage(view: { email: string; session: string; projects: ProjectConnections[]; notice?: string; error?: string }): Html {
  const body =
    view.projects.length > 0
      ? html`${view.projects.map((project) => projectSection(project, view.session))}`
      : html`<p>You are not an admin of any org, so there are no connections for you to manage.</p>`;
  return page(
    'Connected clients',
    html`<h1>Connected clients</h1>
<p>Signed in as <strong>${view.email}</strong>. Disconnecting a client ends its access at once; it has to ask for access again.</p>
${view.notice ? html`<p class="status" role="status">${view.notice}</p>` : ''}
${errorMessage('page-error', view.error)}
${body}`,
  );
}
