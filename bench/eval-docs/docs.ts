import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The real documents of `../shared/eval/docs`, read in place beside the repository (where CI puts shared/),
 * never copied into it. Only bench/ reads them (`npx -y pnpm@10 run test:eval-docs`); the test suite makes its
 * documents itself. When that folder is missing the path still points there, so a check fails naming it.
 */
const besideRepo = fileURLToPath(new URL('../../../shared/eval/docs', import.meta.url));
export const EVAL_DOCS = [besideRepo, '/work/shared/eval/docs'].find((p) => existsSync(p)) ?? besideRepo;
