import { defineConfig } from 'vitest/config';

/** The converters on the real third-party documents of ../shared/eval/docs (not part of `pnpm test`). */
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['bench/eval-docs/*.test.ts'],
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
