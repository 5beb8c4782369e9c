import { defineConfig } from 'vitest/config';

// Two tiers, by folder: `test/unit/` (no server, child process, synth, DuckDB or socket;
// test/unit/unit-tier.test.ts holds each file to that) and `test/system/<area>/` (real servers on
// loopback). `npm run test:unit` runs the first, `npm run test:system [-- <area>...]` the second or
// some of its areas (tools/test-system.sh), `npm test` both. The tier reporter prints each tier's
// and each area's time.
export default defineConfig({
  test: {
    setupFiles: ['test/support/quiet-json.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    server: { deps: { inline: ['dt-sql-parser'] } },
    reporters: ['default', './test/support/tier-time.ts'],
    projects: [
      // Worker threads start cheaper than forks (measured: 5 s less system CPU over the tier); the
      // system tier keeps forks, whose tests change process.env and start child processes.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], pool: 'threads' } },
      { extends: true, test: { name: 'system', include: ['test/system/**/*.test.ts'] } },
    ],
  },
});
