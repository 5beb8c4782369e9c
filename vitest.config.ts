import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/support/quiet-json.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    server: { deps: { inline: ['dt-sql-parser'] } },
  },
});
