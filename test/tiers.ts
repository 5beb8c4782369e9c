// The two test tiers. `unit`: the files listed here, which start no server, no child process, no
// CDK synth and no DuckDB, and open no socket: the whole tier runs in seconds (`npm run
// test:unit`). `system`: every other file under test/ (real servers on loopback, s3rver, the
// simulator, DuckDB, synths, child processes). A new test file lands in `system` unless listed
// here; `test/unit-tier.test.ts` fails when a listed file reaches a module that would make it slow.
export const UNIT_TESTS: readonly string[] = [
  'test/anomaly-detection.test.ts',
  'test/body-bytes.test.ts',
  'test/cli-help.test.ts',
  'test/cloudforet-unreachable.test.ts',
  'test/code-layout.test.ts',
  'test/error-codes.test.ts',
  'test/exit-codes.test.ts',
  'test/fingerprint.test.ts',
  'test/focus-mapping.test.ts',
  'test/focus-row.test.ts',
  'test/freshness.test.ts',
  'test/gate-rule.test.ts',
  'test/import-layers.test.ts',
  'test/infra-events.test.ts',
  'test/infra-settings.test.ts',
  'test/inventory-event.test.ts',
  'test/job-history.test.ts',
  'test/json-pieces.test.ts',
  'test/layout.test.ts',
  'test/plan.test.ts',
  'test/readme.test.ts',
  'test/schema-lock.test.ts',
  'test/sent-ledger.test.ts',
  'test/setting-rules.test.ts',
  'test/sql-grammar.test.ts',
  'test/statements-arithmetic.test.ts',
  'test/statements-race.test.ts',
  'test/unified-run.test.ts',
  'test/unit-attempts.test.ts',
  'test/unit-tier.test.ts',
];
