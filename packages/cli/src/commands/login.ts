import type { Command, Context } from '../command.ts';
import { usageError } from '../errors.ts';
import { logIn, readPassword, saveSession, savedSession, sessionCall } from '../session.ts';

/** `dossier login`: exchange email and password for a session token, kept for this API address. */
async function login(ctx: Context) {
  const email = typeof ctx.values.email === 'string' ? ctx.values.email : ctx.env.SERVICE_EMAIL;
  if (!email) throw usageError('no email', 'pass --email you@example.com or set SERVICE_EMAIL');
  const password = await readPassword(ctx, `password for ${email}: `);
  if (!password) throw usageError('no password', 'type it when asked, pipe it on standard input, or set SERVICE_PASSWORD');
  const session = await logIn(ctx, email, password);
  const baseUrl = ctx.api({ keyRequired: false }).baseUrl;
  saveSession(ctx.env, baseUrl, { token: session.token, email: session.email, savedAt: new Date().toISOString() });
  if (ctx.out.json) return ctx.out.value({ email: session.email, baseUrl });
  ctx.out.info(`logged in as ${session.email} at ${baseUrl} (the session lasts an hour)`);
}

export const loginCommand: Command = {
  name: 'login',
  summary: 'Log in with email and password; agents and keys commands then use the session',
  usage: ['login [--email you@example.com]'],
  description:
    'The password is asked for on a terminal (not echoed), or read from standard input or SERVICE_PASSWORD. The session\n' +
    'token is saved per API address in session.json next to config.json (readable by you only) and lasts an hour.',
  options: { email: { type: 'string' } },
  optionHelp: [['--email <address>', 'the account (default: $SERVICE_EMAIL)']],
  examples: ['dossier login --email admin@example.com', 'echo "$PASSWORD" | dossier login --email admin@example.com'],
  run: login,
};

/** `dossier logout`: forget the saved session (and with --everywhere, revoke every token of the account). */
async function logout(ctx: Context) {
  const baseUrl = ctx.api({ keyRequired: false }).baseUrl;
  if (ctx.values.everywhere && savedSession(ctx.env, baseUrl)) await sessionCall(ctx, 'POST', '/auth/logout-all');
  saveSession(ctx.env, baseUrl, null);
  if (ctx.out.json) return ctx.out.value({ loggedOut: true });
  ctx.out.info(ctx.values.everywhere ? 'logged out everywhere: every token of the account is revoked' : 'logged out');
}

export const logoutCommand: Command = {
  name: 'logout',
  summary: 'Forget the saved session (--everywhere revokes every token of the account)',
  usage: ['logout [--everywhere]'],
  options: { everywhere: { type: 'boolean' } },
  optionHelp: [['--everywhere', 'also revoke every session token of the account on the server']],
  examples: ['dossier logout', 'dossier logout --everywhere'],
  run: logout,
};
