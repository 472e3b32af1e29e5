import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'bench/test/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    // Native modules (better-sqlite3, LanceDB) behave best in child processes, not worker threads.
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './scripts/summary-reporter.ts'],
  },
});
