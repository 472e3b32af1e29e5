import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The real documents of `../shared/eval/docs`, read in place beside the repository (where CI puts shared/),
 * never copied into it. When that folder is missing the path still points there, so a test fails naming it.
 */
const besideRepo = fileURLToPath(new URL('../../shared/eval/docs', import.meta.url));
export const EVAL_DOCS = [besideRepo, '/work/shared/eval/docs'].find((p) => existsSync(p)) ?? besideRepo;
