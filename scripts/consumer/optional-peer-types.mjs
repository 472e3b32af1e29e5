// Usage: node optional-peer-types.mjs <unpacked package dir>
// Follows the package's declarations from every `types` entry of its exports, as a consumer's compiler does, and
// fails when one of them imports an optional peer dependency (which a consumer may not have installed): such an
// import breaks every TypeScript app without that package unless it skips lib checks (issue 36).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const dir = resolve(process.argv[2]);
const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const optional = Object.entries(manifest.peerDependenciesMeta ?? {}).filter(([, meta]) => meta.optional).map(([name]) => name);

/** Every `types` file named by the exports map (any nesting of conditions). */
function typesEntries(value) {
  if (typeof value === 'string') return value.endsWith('.d.ts') ? [value] : [];
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => (key === 'types' && typeof inner === 'string' ? [inner] : typesEntries(inner)));
}

/** The declaration file a relative specifier of `from` names (`./x.js` → `./x.d.ts`). */
function declarationOf(from, specifier) {
  const base = resolve(dirname(from), specifier).replace(/\.(js|ts|mjs)$/, '');
  return [`${base}.d.ts`, join(base, 'index.d.ts')].find((file) => existsSync(file));
}

const seen = new Set();
const offenders = [];
const queue = typesEntries(manifest.exports ?? {}).map((entry) => join(dir, entry));
while (queue.length > 0) {
  const file = queue.pop();
  if (seen.has(file)) continue;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const [, specifier] of text.matchAll(/(?:from\s*|import\s*\(\s*)['"]([^'"]+)['"]/g)) {
    if (specifier.startsWith('.')) {
      const next = declarationOf(file, specifier);
      if (next) queue.push(next);
    } else if (optional.some((peer) => specifier === peer || specifier.startsWith(`${peer}/`))) {
      offenders.push(`${file.slice(dir.length + 1)} imports ${specifier}`);
    }
  }
}
if (offenders.length > 0) {
  console.error(`${manifest.name}: published declarations import optional peers:\n  ${offenders.join('\n  ')}`);
  process.exit(1);
}
