import { PROVIDER_SPELLINGS } from '@dossier/core/vocabulary';
import type { ProviderKey } from '../api-types.ts';
import type { Command, Context } from '../command.ts';
import { usageError } from '../errors.ts';
import { shortDate } from '../format.ts';
import { arg, dispatch } from '../subcommand.ts';

const PROVIDERS: readonly string[] = PROVIDER_SPELLINGS;
const notFound = { notFoundHint: 'check the project id (--project, SERVICE_PROJECT_ID or `dossier config get project_id`) and `dossier provider-keys list`' };

/** The key from --key, else the first line of stdin (so it stays out of the shell history and `ps`). */
async function readKey(ctx: Context): Promise<string> {
  if (typeof ctx.values.key === 'string') return ctx.values.key;
  if (ctx.stdin.isTTY) throw usageError('no key given', 'pipe it in (`pbpaste | dossier provider-keys set anthropic --name team`) or pass --key <key>');
  const chunks: Buffer[] = [];
  for await (const c of ctx.stdin) chunks.push(Buffer.from(c as Buffer));
  const key = Buffer.concat(chunks).toString('utf8').split('\n')[0]?.trim() ?? '';
  if (!key) throw usageError('stdin was empty: expected the provider key on its first line');
  return key;
}

async function list(ctx: Context) {
  const api = ctx.api();
  const keys = await api.json<ProviderKey[]>('GET', `/projects/${ctx.projectId()}/provider-keys`, notFound);
  if (ctx.out.json) return ctx.out.value(keys);
  if (keys.length === 0) return ctx.out.info("no provider keys: research uses the server's managed key, if it has one");
  ctx.out.table(
    ['ID', 'PROVIDER', 'NAME', 'KEY', 'CREATED'],
    keys.map((k) => [k.id, k.provider, k.name, k.keyPreview, shortDate(k.createdAt)]),
  );
}

async function set(ctx: Context) {
  const provider = arg(ctx, 1, 'the provider', 'dossier provider-keys set provider_a --name team < key.txt');
  if (!PROVIDERS.includes(provider)) throw usageError(`unknown provider '${provider}'`, 'use provider_a (or anthropic) or provider_b (or openai)');
  const api = ctx.api();
  const projectId = ctx.projectId();
  const name = typeof ctx.values.name === 'string' ? ctx.values.name : provider;
  const key = await readKey(ctx);
  const created = await api.json<ProviderKey>('POST', `/projects/${projectId}/provider-keys`, { json: { provider, key, name }, ...notFound });
  if (ctx.out.json) return ctx.out.value(created);
  ctx.out.table(['ID', 'PROVIDER', 'NAME', 'KEY', 'CREATED'], [[created.id, created.provider, created.name, created.keyPreview, shortDate(created.createdAt)]]);
  ctx.out.info('stored; only this preview is ever shown again');
}

async function remove(ctx: Context) {
  const id = arg(ctx, 1, 'the key id', 'dossier provider-keys delete <key-id>');
  const api = ctx.api();
  await api.json('DELETE', `/projects/${ctx.projectId()}/provider-keys/${id}`, notFound);
  if (ctx.out.json) ctx.out.value({ id, deleted: true });
  else ctx.out.info(`deleted provider key ${id}; research falls back to the server's managed key`);
}

export const providerKeysCommand: Command = {
  name: 'provider-keys',
  summary: "List, set and delete the project's own model provider keys",
  usage: ['provider-keys list', 'provider-keys set <provider_a|provider_b> [--name label] [--key key]', 'provider-keys delete <key-id>'],
  description:
    "With its own key a project runs research on its own account instead of the server's managed key.\n" +
    'provider_a is Anthropic, provider_b is OpenAI (anthropic and openai are accepted too). The key is read from\n' +
    'stdin unless --key is given; the server stores it encrypted and shows only a preview. Needs the project id.',
  subcommands: [
    ['list', 'keys of the project (previews only)'],
    ['set <provider>', 'store a key'],
    ['delete <key-id>', 'delete a key'],
  ],
  options: { name: { type: 'string' }, key: { type: 'string' } },
  optionHelp: [
    ['--name <label>', 'set: a display label (default: the provider)'],
    ['--key <key>', 'set: the key itself (default: the first line of stdin, which keeps it out of `ps` and history)'],
  ],
  examples: [
    'dossier provider-keys set anthropic --name "team account" < ~/.anthropic-key',
    'dossier provider-keys list --project 5d0c…',
    'dossier provider-keys delete 8a41…',
  ],
  run: (ctx) => dispatch(ctx, 'provider-keys', { list, set, delete: remove }),
};
