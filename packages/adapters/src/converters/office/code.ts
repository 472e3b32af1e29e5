import type { Converter } from '@dossier/core/conversion';
import { decodeUnknownText } from './encoding.ts';
import { guarded } from './guard.ts';
import { blocks, fence, headingText } from './markdown.ts';

/**
 * Source code as fenced blocks tagged with the language. When the file has two or more top-level
 * declarations the language's simple patterns recognise (functions, classes, types…), each gets a
 * `## name` section with its leading comments, so search hits land on a declaration; otherwise the
 * whole file is one section titled by the file name.
 */
export const codeConverter: Converter = {
  name: 'code',
  types: ['text/x-source'],
  convert: ({ bytes, filename }) =>
    guarded('source code', () => {
      const { text } = decodeUnknownText(bytes);
      return { markdown: codeToMarkdown(text, filename), images: [] };
    }),
};

/** File extension → fence language. */
export const LANGUAGE_BY_EXT: Readonly<Record<string, string>> = {
  ts: 'typescript',
  tsx: 'tsx',
  mts: 'typescript',
  cts: 'typescript',
  js: 'javascript',
  jsx: 'jsx',
  mjs: 'javascript',
  cjs: 'javascript',
  py: 'python',
  go: 'go',
  rs: 'rust',
  java: 'java',
  kt: 'kotlin',
  scala: 'scala',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  cxx: 'cpp',
  hpp: 'cpp',
  cs: 'csharp',
  rb: 'ruby',
  php: 'php',
  swift: 'swift',
  sh: 'bash',
  bash: 'bash',
  zsh: 'bash',
  sql: 'sql',
  r: 'r',
  lua: 'lua',
  pl: 'perl',
  dart: 'dart',
  ex: 'elixir',
  exs: 'elixir',
  hs: 'haskell',
  ml: 'ocaml',
  css: 'css',
  scss: 'scss',
  vue: 'vue',
  svelte: 'svelte',
  toml: 'toml',
  ini: 'ini',
  ps1: 'powershell',
  m: 'objectivec',
};

/** Top-level declaration patterns per language; group `name` is the declared name. */
const DECLARATION: Record<string, RegExp> = {
  typescript:
    /^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\*?|class|interface|type|enum|namespace|const|let)\s+(?<name>[\w$]+)/,
  python: /^(?:async\s+)?(?:def|class)\s+(?<name>\w+)/,
  go: /^(?:func\s+(?:\([^)]*\)\s*)?|type\s+)(?<name>\w+)/,
  rust: /^(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:unsafe\s+)?(?:fn|struct|enum|trait|mod|type|impl(?:<[^>]*>)?)\s+(?<name>[\w:<>, ]+?)\s*[({<;:=]/,
  java: /^(?:(?:public|private|protected|abstract|final|static|sealed|data|open|internal)\s+)*(?:class|interface|enum|record|object|fun)\s+(?<name>\w+)/,
  ruby: /^(?:class|module|def)\s+(?<name>[\w:.]+)/,
  bash: /^(?:function\s+)?(?<name>[\w-]+)\s*\(\)\s*\{?/,
  sql: /^(?:create|alter)\s+(?:or\s+replace\s+)?(?:table|view|function|procedure|index|trigger|type)\s+(?:if\s+not\s+exists\s+)?(?<name>[\w."]+)/i,
  php: /^(?:(?:abstract|final)\s+)?(?:function|class|interface|trait)\s+(?<name>\w+)/,
};
const FAMILY: Record<string, string> = {
  tsx: 'typescript',
  javascript: 'typescript',
  jsx: 'typescript',
  kotlin: 'java',
  csharp: 'java',
  scala: 'java',
  swift: 'java',
};

/** Lines that belong to the declaration below them (comments, decorators, attributes). */
const LEADING = /^(\s*(\/\/|#|\/\*|\*|@|--|;|\[)|\s*$)/;

export function codeToMarkdown(text: string, filename: string): string {
  const ext = filename.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1] ?? '';
  const lang = LANGUAGE_BY_EXT[ext] ?? '';
  const title = `# ${headingText(filename) || 'Source'}`;
  const pattern = DECLARATION[FAMILY[lang] ?? lang];
  const parts = pattern ? splitDeclarations(text.split('\n'), pattern) : [];
  if (parts.length < 2) return blocks([title, fence(text, lang)]);
  return blocks([title, ...parts.map((p) => (p.name ? `## \`${p.name}\`\n\n${fence(p.code, lang)}` : fence(p.code, lang)))]);
}

/** The file cut before each top-level declaration (and the comments directly above it). */
function splitDeclarations(lines: string[], pattern: RegExp): { name?: string; code: string }[] {
  const starts: { at: number; name: string }[] = [];
  lines.forEach((l, i) => {
    const name = pattern.exec(l)?.groups?.name?.trim();
    if (!name) return;
    let at = i;
    while (at > 0 && LEADING.test(lines[at - 1] ?? '') && !(starts.at(-1)?.at === at - 1)) at--;
    while (at < i && (lines[at] ?? '').trim() === '') at++;
    starts.push({ at: Math.max(at, (starts.at(-1)?.at ?? -1) + 1), name });
  });
  const parts: { name?: string; code: string }[] = [];
  const first = starts[0]?.at ?? lines.length;
  if (lines.slice(0, first).some((l) => l.trim() !== '')) parts.push({ code: lines.slice(0, first).join('\n') });
  for (const [k, s] of starts.entries()) parts.push({ name: s.name, code: lines.slice(s.at, starts[k + 1]?.at ?? lines.length).join('\n') });
  return parts;
}
