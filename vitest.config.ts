import { defineConfig } from 'vitest/config';
import { UNIT_TESTS } from './test/tiers.ts';

// Two projects (test/tiers.ts says which file is where): `npm run test:unit` runs the fast tier,
// `npm run test:system` the rest; `npm test` runs both. The tier reporter prints each one's time.
export default defineConfig({
  test: {
    setupFiles: ['test/support/quiet-json.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    server: { deps: { inline: ['dt-sql-parser'] } },
    reporters: ['default', './test/support/tier-time.ts'],
    projects: [
      { extends: true, test: { name: 'unit', include: [...UNIT_TESTS] } },
      { extends: true, test: { name: 'system', include: ['test/**/*.test.ts'], exclude: [...UNIT_TESTS] } },
    ],
  },
});
