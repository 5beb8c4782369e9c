// Checks a folder of FOCUS Parquet files against the FOCUS requirements model:
//   bash tools/with-node24.sh tsx tools/focus/check.ts <dir> [--model <model.json>] [--all] [--json]
// <dir> is searched for *.parquet at any depth (hive partition folders become columns). Prints the
// counts and every failing or warning rule (--all: every rule; --json: the whole report). Exits 1
// when a MUST-level rule fails.
import { parseArgs } from 'node:util';
import { checkFocusConformance, formatTable } from './conformance.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { model: { type: 'string' }, all: { type: 'boolean' }, json: { type: 'boolean' } },
});
const dir = positionals[0];
if (!dir) {
  console.error('usage: tsx tools/focus/check.ts <dir> [--model <model.json>] [--all] [--json]');
  process.exit(2);
}
const report = await checkFocusConformance({
  parquetGlob: `${dir.replace(/\/+$/, '')}/**/*.parquet`,
  ...(values.model ? { model: values.model } : {}),
});
console.log(
  values.json ? JSON.stringify(report, null, 2) : formatTable(report, { all: values.all ?? false }),
);
process.exitCode = report.failures.length > 0 ? 1 : 0;
