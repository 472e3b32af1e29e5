// Runs the workspace's built packages (dist/) as an installed copy would, with plain node and no TypeScript loader:
// `@dossier/core` and `@dossier/adapters` resolve through their publishConfig exports instead of src/.
// Usage: node --import ./bench/compare/dist-loader.mjs script.mjs (after `npx tsc -b tsconfig.build.json`).
import { register } from 'node:module';

register('./dist-hooks.mjs', import.meta.url);
