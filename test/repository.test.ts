import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, SETTINGS, settingsTable } from '../packages/server/src/config.ts';

const root = join(import.meta.dirname, '..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');

function filesUnder(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const rel = join(dir, name);
    return statSync(join(root, rel)).isDirectory() ? filesUnder(rel) : rel.endsWith('.ts') ? [rel] : [];
  });
}

describe('the README and docs/', () => {
  it('documents every configuration setting in docs/configuration.md, exactly as the config schema defines it', () => {
    const page = read('docs/configuration.md');
    const table = /<!-- config-table:start -->\n([\s\S]*?)\n<!-- config-table:end -->/.exec(page)?.[1];
    expect(table).toBe(settingsTable());
  });

  it('keeps the README short enough to read in five minutes, and links every page it names', () => {
    const readme = read('README.md');
    expect(Buffer.byteLength(readme)).toBeLessThan(12 * 1024);
    const links = [...readme.matchAll(/\]\(((?:docs|packages|examples)\/[^)#\s]+)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(5);
    for (const link of links) expect(() => statSync(join(root, link)), link).not.toThrow();
  });

  it('lists every page of docs/ in docs/README.md', () => {
    const index = read('docs/README.md');
    const pages = readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md') && name !== 'README.md');
    for (const page of pages) expect(index, page).toContain(`(${page})`);
  });

  it('gives exactly two set-up commands, and CI runs the test one verbatim', () => {
    const setup = /## Set up[\s\S]*?```sh\n([\s\S]*?)```/.exec(read('README.md'))?.[1] ?? '';
    const commands = setup.split('\n').filter((l) => l.trim() && !l.startsWith('#'));
    expect(commands).toEqual(['npx -y pnpm@10 install && npx -y pnpm@10 start', 'npx -y pnpm@10 install && npx -y pnpm@10 test']);
    expect(read('.ci/run')).toContain(commands[1]);
  });
});

describe('configuration', () => {
  it('gives every documented setting a default that loads without flags or environment', () => {
    const config = loadConfig([], {});
    for (const s of SETTINGS) expect(config).toHaveProperty(s.key);
  });

  it('names both the flag and the environment variable when a value is bad', () => {
    expect(() => loadConfig(['--port', 'x'], {})).toThrow(/--port \/ DOSSIER_PORT/);
    expect(() => loadConfig([], { DOSSIER_WORKERS: '-1' })).toThrow(/DOSSIER_WORKERS/);
    expect(() => loadConfig(['--nope', '1'], {})).toThrow(/Unknown option --nope/);
  });

  it('reads research time limits and token budgets per depth, the depths not named keeping their defaults (issue 12)', () => {
    const config = loadConfig(['--research-time-limits', 'exhaustive=20m, quick=45s'], { DOSSIER_RESEARCH_INPUT_BUDGETS: 'deep=150000' });
    expect(config.researchTimeLimitsMs).toEqual({ quick: 45_000, balanced: 120_000, deep: 300_000, exhaustive: 1_200_000 });
    expect(config.researchInputBudgets).toEqual({ quick: 30_000, balanced: 60_000, deep: 150_000, exhaustive: 500_000 });
    expect(() => loadConfig([], { DOSSIER_RESEARCH_TIME_LIMITS: 'bottomless=1m' })).toThrow(/--research-time-limits \/ DOSSIER_RESEARCH_TIME_LIMITS: unknown depth 'bottomless'/);
    expect(() => loadConfig([], { DOSSIER_RESEARCH_INPUT_BUDGETS: 'quick=lots' })).toThrow(/DOSSIER_RESEARCH_INPUT_BUDGETS: expected a whole number of tokens/);
    expect(() => loadConfig(['--provider-retries', '-1'], {})).toThrow(/--provider-retries/);
  });

  it('prefers flags over the environment over defaults', () => {
    expect(loadConfig(['--port=9001'], { DOSSIER_PORT: '9000' }).port).toBe(9001);
    expect(loadConfig([], { DOSSIER_PORT: '9000' }).port).toBe(9000);
    expect(loadConfig([], {}).port).toBe(8080);
  });
});

describe('package boundaries', () => {
  const ADAPTER_LIBRARIES = ['@lancedb/lancedb', 'better-sqlite3', 'kysely', 'piscina', 'koa', '@koa/router', 'ollama', 'openai', '@anthropic-ai/sdk', '@huggingface/transformers', 'apache-arrow'];

  it('keeps core free of every adapter library', () => {
    const offenders = filesUnder('packages/core/src').flatMap((file) => {
      const imports = [...read(file).matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);
      return imports.filter((i) => ADAPTER_LIBRARIES.some((lib) => i === lib || i.startsWith(`${lib}/`))).map((i) => `${file}: ${i}`);
    });
    expect(offenders).toEqual([]);
  });

  it('keeps one small file per port', () => {
    for (const file of filesUnder('packages/core/src/ports')) {
      expect(read(file).split('\n').length, file).toBeLessThanOrEqual(130);
    }
  });

  it('lets adapters reach core only through its package entry points', () => {
    const offenders = filesUnder('packages/adapters/src').filter((f) => /from ['"](\.\.\/)+core\//.test(read(f)));
    expect(offenders).toEqual([]);
  });
});
