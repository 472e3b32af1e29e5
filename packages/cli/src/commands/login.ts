import type { Command, Context } from '../command.ts';
import { usageError } from '../errors.ts';
import { logIn, readPassword, saveSession, savedSession, sessionCall } from '../session.ts';
import { ssoLogIn } from '../sso-login.ts';

/** E-mail and password: from --email (or SERVICE_EMAIL) and the terminal, standard input or SERVICE_PASSWORD. */
async function passwordLogIn(ctx: Context) {
  const email = typeof ctx.values.email === 'string' ? ctx.values.email : ctx.env.SERVICE_EMAIL;
  if (!email) throw usageError('no email', 'pass --email you@example.com or set SERVICE_EMAIL (or sign in with --sso <provider>)');
  const password = await readPassword(ctx, `password for ${email}: `);
  if (!password) throw usageError('no password', 'type it when asked, pipe it on standard input, or set SERVICE_PASSWORD');
  return logIn(ctx, email, password);
}

/** `dossier login`: exchange email and password (or a single sign-on) for a session token, kept for this API address. */
async function login(ctx: Context) {
  const provider = ctx.values.sso;
  if (provider !== undefined && (typeof provider !== 'string' || !provider))
    throw usageError('--sso needs the id of an identity provider', 'e.g. dossier login --sso corp');
  if (provider && typeof ctx.values.email === 'string') throw usageError('--sso and --email do not go together', 'the identity provider says who you are');
  const session = provider ? await ssoLogIn(ctx, provider, { openBrowser: ctx.values['no-browser'] !== true }) : await passwordLogIn(ctx);
  const baseUrl = ctx.api({ keyRequired: false }).baseUrl;
  saveSession(ctx.env, baseUrl, { token: session.token, email: session.email, savedAt: new Date().toISOString() });
  if (ctx.out.json) return ctx.out.value({ email: session.email, baseUrl });
  ctx.out.info(`logged in as ${session.email} at ${baseUrl} (the session lasts an hour)`);
}

export const loginCommand: Command = {
  name: 'login',
  summary: 'Log in with email and password, or single sign-on; agents, keys and members commands then use the session',
  usage: ['login [--email you@example.com]', 'login --sso <provider> [--no-browser]'],
  description:
    'The password is asked for on a terminal (not echoed), or read from standard input or SERVICE_PASSWORD. The session\n' +
    'token is saved per API address in session.json next to config.json (readable by you only) and lasts an hour.\n' +
    'With --sso, the browser signs you in with the identity provider and comes back to a listener of this command on\n' +
    '127.0.0.1 (the address is printed too, to open by hand); the server hands it a one-time code only this command can redeem.',
  options: { email: { type: 'string' }, sso: { type: 'string' }, 'no-browser': { type: 'boolean' } },
  optionHelp: [
    ['--email <address>', 'the account (default: $SERVICE_EMAIL)'],
    ['--sso <provider>', 'sign in with this identity provider of the server (GET /v1/auth/sso/providers lists them)'],
    ['--no-browser', 'with --sso: only print the address to open (on another machine, forward the port first)'],
  ],
  examples: ['dossier login --email admin@example.com', 'echo "$PASSWORD" | dossier login --email admin@example.com', 'dossier login --sso corp'],
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
