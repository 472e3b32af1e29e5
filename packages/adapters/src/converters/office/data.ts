import { type Converter, DossierError } from '@dossier/core/conversion';
import { decodeUnknownText } from './encoding.ts';
import { guarded } from './guard.ts';
import { blocks, fence, headingText, splitTable } from './markdown.ts';

/**
 * JSON and YAML as readable Markdown that keeps every value searchable: a `# file` title, top-level
 * scalars grouped in one block, each composite top-level value under its own `## key` section as a
 * fenced block (a JSON array of flat records becomes a table). YAML keeps its source text, comments
 * included, and is parsed only to validate and find the top-level keys: aliases are never expanded,
 * so a billion-laughs document costs nothing.
 */
export const dataConverter: Converter = {
  name: 'data',
  types: ['application/json', 'application/yaml'],
  convert: ({ bytes, filename, detectedType }) =>
    guarded(detectedType === 'application/json' ? 'JSON' : 'YAML', async () => {
      const { text } = decodeUnknownText(bytes);
      const title = `# ${headingText(filename) || 'Data'}`;
      const body = detectedType === 'application/json' ? jsonBlocks(text) : await yamlBlocks(text);
      return { markdown: blocks([title, ...body]), images: [] };
    }),
};

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const isScalar = (v: Json): boolean => v === null || typeof v !== 'object';
const pretty = (v: Json): string => JSON.stringify(v, null, 2);

function jsonBlocks(text: string): string[] {
  let value: Json;
  try {
    value = JSON.parse(text) as Json;
  } catch (err) {
    throw new DossierError('conversion_failed', `The file is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [jsonValue(value)];
  const entries = Object.entries(value);
  const scalars = Object.fromEntries(entries.filter(([, v]) => isScalar(v)));
  const sections = entries.filter(([, v]) => !isScalar(v)).map(([k, v]) => `## ${headingText(k) || '(empty key)'}\n\n${jsonValue(v)}`);
  return [Object.keys(scalars).length > 0 ? fence(pretty(scalars), 'json') : '', ...sections];
}

/** An array of flat records as tables; anything else as a fenced block. */
function jsonValue(v: Json): string {
  if (Array.isArray(v) && v.length > 1 && v.every((r) => r !== null && typeof r === 'object' && !Array.isArray(r) && Object.values(r).every(isScalar))) {
    const records = v as Record<string, Json>[];
    const keys = [...new Set(records.flatMap((r) => Object.keys(r)))];
    const rows = records.map((r) => keys.map((k) => (r[k] === undefined || r[k] === null ? '' : String(r[k]))));
    return splitTable(keys, rows).join('\n\n');
  }
  return fence(pretty(v), 'json');
}

async function yamlBlocks(text: string): Promise<string[]> {
  const YAML = await import('yaml');
  const docs = YAML.parseAllDocuments(text, { uniqueKeys: false });
  const list = Array.isArray(docs) ? docs : [docs];
  const out: string[] = [];
  let start = 0;
  for (const [n, doc] of list.entries()) {
    const [error] = doc.errors;
    if (error) throw new DossierError('conversion_failed', `The file is not valid YAML: ${error.message.split('\n')[0]}`);
    const end = doc.range[2];
    if (list.length > 1) out.push(`## Document ${n + 1}`);
    out.push(...yamlDocument(YAML, doc.contents, text, start, end, list.length > 1 ? '###' : '##'));
    start = end;
  }
  return out;
}

type YamlModule = typeof import('yaml');
type YamlNode = import('yaml').Document.Parsed['contents'];

/** One document's source split at its top-level keys; scalar entries grouped, composite ones titled. */
function yamlDocument(YAML: YamlModule, contents: YamlNode, text: string, start: number, end: number, level: string): string[] {
  const source = (from: number, to: number): string =>
    text
      .slice(from, to)
      .replace(/^(---|\.\.\.)[^\n]*\n?/gm, '')
      .replace(/^\s*\n|\s+$/g, '');
  if (!YAML.isMap(contents) || contents.items.length === 0) return [fence(source(start, end), 'yaml')].filter((b) => b.length > 10);
  const items = contents.items;
  const scalars: string[] = [];
  const sections: string[] = [];
  for (const [k, pair] of items.entries()) {
    const from = k === 0 ? start : ((pair.key as { range?: number[] } | null)?.range?.[0] ?? start);
    const to = (items[k + 1]?.key as { range?: number[] } | null)?.range?.[0] ?? end;
    if (!(YAML.isMap(pair.value) || YAML.isSeq(pair.value))) scalars.push(source(from, to));
    else sections.push(`${level} ${headingText(String(YAML.isScalar(pair.key) ? pair.key.value : pair.key)) || '(key)'}\n\n${fence(source(from, to), 'yaml')}`);
  }
  const out = scalars.length > 0 ? [fence(scalars.join('\n'), 'yaml'), ...sections] : sections;
  return out;
}
