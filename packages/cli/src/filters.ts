import type { OptionSpecs, Values } from './command.ts';
import { usageError } from './errors.ts';

/** `--metadata k=v` values: the value is parsed as JSON when it is JSON (`year=2024` is a number), else a string. */
export function parseMetadata(pairs: string[]): Record<string, unknown> | undefined {
  if (pairs.length === 0) return undefined;
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0)
      throw usageError(`--metadata needs key=value, got '${pair}'`, 'e.g. --metadata year=2024 --metadata team=research --metadata \'scope={"region":"eu"}\'');
    const raw = pair.slice(eq + 1);
    out[pair.slice(0, eq)] = jsonOrString(raw);
  }
  return out;
}

function jsonOrString(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** A repeatable string flag as an array. */
export const many = (values: Values, name: string): string[] => {
  const v = values[name];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : [];
};

/** The filter flags shared by query, scan and research. */
export const FILTER_OPTIONS: OptionSpecs = {
  tag: { type: 'string', multiple: true },
  'any-tag': { type: 'string', multiple: true },
  metadata: { type: 'string', multiple: true },
};

export const FILTER_HELP: [string, string][] = [
  ['--tag <name>', 'only documents carrying ALL these tags (repeatable)'],
  ['--any-tag <name>', 'only documents carrying at least ONE of these tags (repeatable)'],
  ['--metadata <k=v>', 'only documents whose metadata has all these pairs; values are JSON when they parse (repeatable)'],
];

/** The request body fields of the filter flags (absent when not given). */
export function filterBody(values: Values): Record<string, unknown> {
  const tags = many(values, 'tag');
  const anyTags = many(values, 'any-tag');
  const metadata = parseMetadata(many(values, 'metadata'));
  return { ...(tags.length ? { tags } : {}), ...(anyTags.length ? { anyTags } : {}), ...(metadata ? { metadata } : {}) };
}

/** A positive integer flag within bounds, or a usage error naming the flag. */
export function intFlag(values: Values, name: string, min: number, max: number): number | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (typeof v !== 'string' || !Number.isInteger(n) || n < min || n > max)
    throw usageError(`--${name} must be a whole number from ${min} to ${max}, not '${String(v)}'`);
  return n;
}

/** The flag's value when it is one of the choices (a list of core's vocabulary), a usage error naming them when not. */
export function choiceFlag<T extends string>(values: Values, name: string, choices: readonly T[]): T | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  if (typeof v === 'string' && (choices as readonly string[]).includes(v)) return v as T;
  throw usageError(`--${name} must be ${choices.join(', ')}, not '${String(v)}'`);
}

/** The choices of a flag as its help shows them (`none|rm3`). */
export const choiceHelp = (choices: readonly string[]): string => choices.join('|');

/** The one text argument of query, scan and research (several words are joined). */
export function textArgument(positionals: string[], what: string, example: string): string {
  const text = positionals.join(' ').trim();
  if (!text) throw usageError(`missing the ${what}`, `e.g. ${example}`);
  return text;
}
