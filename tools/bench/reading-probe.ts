// A short loop for changing a saved query or view (not part of npm run bench): the reading stage's
// year exported once into a kept folder (and its three-year copy), then only the named queries
// measured over both, as the stage measures them. Usage:
//   npx tsx tools/bench/reading-probe.ts [--dir /tmp/reading-probe] [query name]...
// The folder is reused on the next call; delete it after changing the exporter or the layout.
import { cp, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { addDays } from '../../functions/lib/dates.ts';
import { rebuildNameRanges } from '../../functions/lib/inventory/name-ranges.ts';
import { dirSink } from '../../functions/lib/storage/dir-sink.ts';
import { athenaOver } from '../../harness/duckdb-athena.ts';
import { loadNamedQueries } from '../../infra/named-queries.ts';
import { copySnapshots, exportYear, indexFiles, profile, READING_SCALE } from './reading.ts';
import { copyEarlierPeriods, rebuildDerived } from './reading-history.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    dir: { type: 'string', default: '/tmp/reading-probe' },
    years: { type: 'string', default: '3' },
  },
});
const dir = values.dir;
const years = Number(values.years);
const scale = { ...READING_SCALE, rowsPerDay: 10, snapshotDays: 30 };
const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );
const one = join(dir, 'out-1y');
const longer = join(dir, `out-${years}y`);
await mkdir(dir, { recursive: true });
if (!(await exists(one))) {
  await exportYear(dir, one, scale);
  await rebuildNameRanges(dirSink(one));
}
if (!(await exists(longer))) {
  await cp(one, longer, { recursive: true });
  const days = Math.round((Date.parse(scale.to) - Date.parse(scale.from)) / 86_400_000) + 1;
  await copyEarlierPeriods(longer, days, years - 1);
  await copySnapshots(longer, scale.to, scale.snapshotDays, scale.snapshotDays * years);
  await rebuildDerived(longer);
}
const now = new Date(`${addDays(scale.to, 1)}T12:00:00.000Z`);
const all = loadNamedQueries();
const picked = positionals.length ? all.filter((q) => positionals.includes(q.name)) : all;
const rows: string[] = [];
for (const out of [one, longer]) {
  const index = await indexFiles(out);
  const db = await athenaOver(out, { now });
  try {
    await db.connection.run('SET enable_external_file_cache = false');
    await db.connection.run('SET parquet_metadata_cache = false');
    for (const q of all) if (q.sql.startsWith('CREATE OR REPLACE VIEW')) await db.run(q.sql);
    for (const q of picked) {
      const view = /CREATE OR REPLACE VIEW\s+(\w+)/.exec(q.sql)?.[1];
      const r = await profile(db, view ? `SELECT * FROM ${view}` : q.sql, q.name, { index, dir, now });
      rows.push(
        `${out === one ? '1y' : `${years}y`}\t${q.name}\t${r.objects}\t${(r.bytes / 1e6).toFixed(2)} MB`,
      );
    }
  } finally {
    db.close();
  }
}
console.log(rows.join('\n'));
