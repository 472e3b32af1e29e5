import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import type { RequestOptions } from './client.ts';
import type { Context } from './command.ts';
import { CliError } from './errors.ts';
import { EXIT } from './exit-codes.ts';
import { configDir, readJsonFile, writeJsonFile } from './files.ts';

/**
 * The management-plane session (issue 9): `dossier login` keeps a JWT per API address in session.json (0600),
 * next to config.json. Commands that need a session (agents, keys) take --token, then SERVICE_TOKEN, then the
 * saved session, then log in with SERVICE_EMAIL and SERVICE_PASSWORD.
 */
interface SavedSession {
  token: string;
  email: string;
  savedAt: string;
}

const sessionPath = (env: NodeJS.ProcessEnv): string => join(configDir(env), 'session.json');

function loadSessions(env: NodeJS.ProcessEnv): Record<string, SavedSession> {
  try {
    return readJsonFile(sessionPath(env), 'session file') as Record<string, SavedSession>;
  } catch {
    return {};
  }
}

/** Save (or, with null, forget) the session of an API address; the file is readable by its owner only. */
export function saveSession(env: NodeJS.ProcessEnv, baseUrl: string, session: SavedSession | null): void {
  const sessions = loadSessions(env);
  if (session) sessions[baseUrl] = session;
  else delete sessions[baseUrl];
  const path = sessionPath(env);
  writeJsonFile(path, sessions);
  chmodSync(path, 0o600);
}

export const savedSession = (env: NodeJS.ProcessEnv, baseUrl: string): SavedSession | undefined => loadSessions(env)[baseUrl];

/** POST /auth/login; the token and the account's email. */
export async function logIn(ctx: Context, email: string, password: string): Promise<{ token: string; email: string }> {
  const res = await ctx.api({ keyRequired: false }).send('POST', '/auth/login', { json: { email, password }, auth: false, allow: [401, 429] });
  if (res.status === 401) throw new CliError(`login failed for ${email}: wrong email or password`, EXIT.auth);
  if (res.status === 429) throw new CliError('login failed: too many attempts', EXIT.failure, `try again in ${res.headers.get('retry-after') ?? 'a few'} s`);
  const body = (await res.json()) as { token: string; user: { email: string } };
  return { token: body.token, email: body.user.email };
}

/** The session token for this command (see the module comment for the order), or an error saying how to get one. */
export async function sessionToken(ctx: Context): Promise<string> {
  const given = typeof ctx.values.token === 'string' ? ctx.values.token : ctx.env.SERVICE_TOKEN;
  if (given) return given;
  const saved = savedSession(ctx.env, ctx.api({ keyRequired: false }).baseUrl);
  if (saved) return saved.token;
  const { SERVICE_EMAIL: email, SERVICE_PASSWORD: password } = ctx.env;
  if (email && password) return (await logIn(ctx, email, password)).token;
  throw new CliError('this command needs a session', EXIT.auth, 'run `dossier login`, or set SERVICE_TOKEN, or SERVICE_EMAIL and SERVICE_PASSWORD');
}

/** A request with the session as Bearer (a 401 says the session expired). */
export async function sessionCall<T>(ctx: Context, method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  const token = await sessionToken(ctx);
  try {
    return await ctx
      .api({ keyRequired: false })
      .json<T>(method, path, { ...opts, auth: false, headers: { ...opts.headers, authorization: `Bearer ${token}` } });
  } catch (err) {
    // A refused token reads as "no API key" to the client (none was sent): say what it is, a refused session.
    if (err instanceof CliError && err.exitCode === EXIT.missingKey)
      throw new CliError(
        'the session token was refused (HTTP 401)',
        EXIT.auth,
        'the session may have expired (tokens last an hour) or ended: run `dossier login` again',
      );
    if (err instanceof CliError && err.exitCode === EXIT.auth)
      throw new CliError(err.message, EXIT.auth, 'the session may have expired (tokens last an hour): run `dossier login` again');
    throw err;
  }
}

/** Read a password: SERVICE_PASSWORD, else a line of standard input (not echoed on a terminal). */
export async function readPassword(ctx: Context, prompt: string): Promise<string> {
  if (ctx.env.SERVICE_PASSWORD) return ctx.env.SERVICE_PASSWORD;
  const stdin = ctx.stdin as NodeJS.ReadStream;
  if (!stdin.isTTY) return (await readAll(stdin)).split(/\r?\n/)[0] ?? '';
  ctx.out.streams.stderr.write(prompt);
  stdin.setRawMode(true);
  try {
    return await readHidden(stdin);
  } finally {
    stdin.setRawMode(false);
    ctx.out.streams.stderr.write('\n');
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text;
}

/** Characters until Enter, none echoed; Ctrl-C aborts. */
function readHidden(stdin: NodeJS.ReadStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let typed = '';
    const onData = (data: Buffer) => {
      for (const char of data.toString()) {
        if (char === '\r' || char === '\n') return done(() => resolve(typed));
        if (char === '\u0003') return done(() => reject(new CliError('cancelled', EXIT.failure)));
        typed = char === '\u007f' ? typed.slice(0, -1) : typed + char;
      }
    };
    const done = (finish: () => void) => {
      stdin.off('data', onData);
      stdin.pause();
      finish();
    };
    stdin.on('data', onData);
    stdin.resume();
  });
}
