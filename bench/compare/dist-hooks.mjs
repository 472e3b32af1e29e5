import { readFileSync } from 'node:fs';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const packages = resolvePath(dirname(fileURLToPath(import.meta.url)), '../../packages');
/** Package name → its folder and the exports it publishes. */
const published = new Map(
  ['core', 'adapters'].map((name) => {
    const dir = join(packages, name);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    return [`@dossier/${name}`, { dir, exports: pkg.publishConfig.exports }];
  }),
);

export async function resolve(specifier, context, next) {
  const match = /^(@dossier\/[a-z-]+)(\/.*)?$/.exec(specifier);
  const pkg = match && published.get(match[1]);
  if (!pkg) return next(specifier, context);
  const entry = pkg.exports[`.${match[2] ?? ''}`];
  if (!entry) return next(specifier, context);
  return { url: pathToFileURL(join(pkg.dir, entry.import)).href, shortCircuit: true };
}
