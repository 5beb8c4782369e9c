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
      // The unit tier: each file in its own VM context on two worker threads, which share the
      // modules' compiled code (measured on two cores at load 2.4: 19.6 s, against 24.6 s on
      // threads and 25.4 s on forks; vitest's default is one worker fewer than the cores: one here).
      // The system tier keeps forks: its tests change process.env and start child processes.
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], pool: 'vmThreads', maxWorkers: 2 },
      },
      { extends: true, test: { name: 'system', include: ['test/system/**/*.test.ts'] } },
    ],
  },
});
