// npm run bench:ab -- <dir> <dir> … [--rounds 3] [--kind pipeline] [--latency 0] [--sink dir]: one bench stage
// built from each worktree's code (its tools/bench/stage.ts, bundled as the bench does) and run
// alternately on the same recorded pages, each variant's first run recording what it asks.
// `<dir>::--flag,NAME=value` runs that tree with more Node flags or environment (e.g.
// ::--max-semi-space-size=8, ::MALLOC_ARENA_MAX=1 or ::BENCH_ROW_GROUP_ROWS=12500).
// Prints every run and each variant's median CPU µs a row, wall and peak RSS: a regression found
// between two commits without a full bench.
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { addDays } from '../../functions/lib/dates.ts';
import { startS3 } from '../../harness/s3-server.ts';
import { bundleStage, runStage, startSource } from './harness.ts';
import type { StageResult, StageSpec } from './stage.ts';

const { values: args, positionals: variants } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '3' },
    kind: { type: 'string', default: 'pipeline' },
    latency: { type: 'string', default: '0' },
    concurrency: { type: 'string', default: '4' },
    sink: { type: 'string', default: 'dir' },
    days: { type: 'string', default: '4' },
  },
});
const dirs = variants.map((v) => v.split('::')[0]!);
const flagsOf = variants.map((v) => (v.includes('::') ? v.split('::')[1]!.split(',') : []));
if (dirs.length === 0) {
  console.error(
    'usage: npm run bench:ab -- <worktree> [<worktree> …] [--rounds N] [--kind pipeline|limit] [--latency ms] [--sink dir|s3] [--days 4]',
  );
  process.exit(2);
}
const FROM = '2026-01-01';
const DATA_SOURCES = 4;
const DAYS = Number(args.days);
const UNIT_ROWS = 62_500;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const scripts = await Promise.all(dirs.map((dir, i) => bundleStage(resolve(dir), `ab-${process.pid}-${i}`)));
const source = await startSource({
  seed: 7,
  dataSources: DATA_SOURCES,
  from: FROM,
  to: addDays(FROM, DAYS - 1),
  rowsPerDay: UNIT_ROWS,
  exactRowsPerDay: true,
});
const s3 = args.sink === 's3' ? await startS3({ buckets: ['bench'] }) : undefined;
try {
  const spec: StageSpec = {
    kind: args.kind as StageSpec['kind'],
    url: source.ready.url,
    token: source.ready.token,
    from: FROM,
    to: addDays(FROM, DAYS - 1),
    concurrency: Number(args.concurrency),
    sink: s3 ? { kind: 's3', endpoint: s3.endpoint, bucket: 'bench' } : { kind: 'dir' },
  };
  for (const [i, script] of scripts.entries()) {
    await runStage(script, `${variants[i]}, recording`, spec, flagsOf[i]);
  }
  await source.setLatency(Number(args.latency));
  const results: StageResult[][] = dirs.map(() => []);
  for (let round = 0; round < Number(args.rounds); round++) {
    for (const [i, script] of scripts.entries()) {
      results[i]!.push(await runStage(script, `${variants[i]}, round ${round + 1}`, spec, flagsOf[i]));
    }
  }
  for (const [i, variant] of variants.entries()) {
    const r = results[i]!;
    console.log(
      `${variant}: median ${median(r.map((x) => (x.cpuMs * 1000) / x.rows)).toFixed(2)} CPU µs/row, ` +
        `${(median(r.map((x) => x.wallMs)) / 1000).toFixed(1)} s, peak RSS ${median(r.map((x) => x.peakRssMb)).toFixed(0)} MB ` +
        `(max ${Math.max(...r.map((x) => x.peakRssMb)).toFixed(0)}), ${(median(r.map((x) => x.bytes)) / 1e6).toFixed(3)} MB`,
    );
  }
} finally {
  source.stop();
  await s3?.stop();
  await Promise.all(scripts.map((s) => rm(s, { force: true })));
}
