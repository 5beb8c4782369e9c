// Absence is never evidence, for compaction too (issue 45): a day a compacted month was built from
// whose daily manifest (and object) went missing fails that (table, data source, month) unit of
// compaction, names the day, keeps the monthly object and manifest byte for byte, and keeps the
// views reading the month from it; a cost run exports such a day again while Cloudforet holds it,
// and the month compacts whole; the verifier names such a day, a monthly manifest that names
// fewer days than the month has, and a ledger or compaction_state file that does not parse; a
// garbled compaction_state is rebuilt by the next run with a warning instead of failing it; and
// no unit writes compaction_state (two lowering it at once lost an update): units mark a month.
import { cp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { compactConfirmedMonths } from '../../../functions/lib/compaction/compact.ts';
import { runCostExport } from '../../../functions/lib/costs/run.ts';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import {
  COMPACTED_DAILY_TABLES,
  dirtyMarks,
  lastDayOf,
  leaveCompactionFor,
  markCompactionDirty,
  monthBefore,
} from '../../../functions/lib/destination/compaction-state.ts';
import { unprovenDrops } from '../../../functions/lib/destination/day-drops.ts';
import { verifyDestination } from '../../../functions/lib/destination/verify-destination.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import type { Sink } from '../../../functions/lib/storage/sink.ts';
import { compactedTables } from '../../../functions/lib/tables/compacted.ts';
import { type AthenaLike, athenaOver } from '../../../harness/duckdb-athena.ts';
import type { Simulator } from '../../../harness/simulator/index.ts';
import { loadNamedQueries } from '../../../infra/named-queries.ts';
import { type CliWorld, cliWorld } from '../../support/cli-world.ts';
import { monthBack } from '../../support/months.ts';

/** The month before last: always confirmed (from day 15 of the next), so compacted by the first run. */
const MONTH = monthBack(2);
const FROM = `${MONTH}-01`;
const TO = addDays(utcDay(new Date()), -1);
const DAY = `${MONTH}-20`;

let world: CliWorld;
let sim: Simulator;
let dir: string;
let base: string;
let ds: string;

beforeAll(async () => {
  world = await cliWorld('compaction-absence', {
    seed: 45,
    dataSources: 2,
    from: FROM,
    to: TO,
    rowsPerDay: 3,
  });
  ({ sim, dir } = world);
  base = join(dir, 'base');
  const first = await costs(base, '--from', FROM, '--to', TO);
  expect(first.code).toBe(0);
  [ds] = sim.dataSourceIds() as [string];
}, 120_000);
afterAll(() => world.close());

/** The CLI's costs command (its default window unless told), its exit code, summary and warnings. */
const costs = (out: string, ...extra: string[]) => world.cli('costs', out, '--json', ...extra);

/** The same, as people read it (no --json). */
const costsText = (out: string, ...extra: string[]) => world.cli('costs', out, ...extra);

const clientOf = () =>
  new CloudforetClient({ endpoint: sim.url, token: sim.issueToken(), dispatcher: new Agent() });

/** A fresh copy of the first run's destination. */
async function copyOfBase(name: string): Promise<string> {
  const out = join(dir, name);
  await rm(out, { recursive: true, force: true });
  await cp(base, out, { recursive: true });
  return out;
}

const dailyManifest = (day: string) => `_manifests/costs/billed_date=${day}/${ds}.json`;
const dailyObject = (day: string) => `costs/billed_date=${day}/${ds}.parquet`;
const monthly = () => `costs_monthly/billed_month=${MONTH}/${ds}.parquet`;
const monthlyManifest = () => `_manifests/costs_monthly/billed_month=${MONTH}/${ds}.json`;

/** Rows the views read for one data source's day (costs_combined: compacted months from costs_monthly). */
async function viewRows(out: string, day: string): Promise<number> {
  const db: AthenaLike = await athenaOver(out);
  try {
    for (const q of loadNamedQueries().filter((q) => /VIEW costs_combined AS/.test(q.sql)))
      await db.run(q.sql);
    const rows = await db.run(
      `SELECT count(*) AS n FROM costs_combined WHERE billed_date = '${day}' AND data_source_id = '${ds}'`,
    );
    return Number(rows[0]!['n']);
  } finally {
    db.close();
  }
}

type Failure = { dataSourceId: string; month: string; code: string; message: string };
const failuresOf = (summary: { compaction: { tables: Array<{ table: string; failures: Failure[] }> } }) =>
  summary.compaction.tables.flatMap((t) => t.failures.map((f) => ({ table: t.table, ...f })));

describe('compaction takes no missing daily unit as proof', () => {
  for (const variant of ['manifest', 'manifest and object'] as const) {
    it(`the day's ${variant} deleted: the compaction step fails naming the day, the monthly object is kept and still read`, async () => {
      const out = await copyOfBase(`missing-${variant.replace(/ /g, '-')}`);
      const before = {
        object: await readFile(join(out, monthly())),
        manifest: await readFile(join(out, monthlyManifest()), 'utf8'),
        rows: await viewRows(out, DAY),
      };
      expect(before.rows).toBeGreaterThan(0);
      await rm(join(out, dailyManifest(DAY)));
      if (variant === 'manifest and object') await rm(join(out, dailyObject(DAY)));

      const summary = await compactConfirmedMonths({
        client: clientOf(),
        sink: dirSink(out),
        runId: 'absence',
      });

      const failures = summary.tables.find((t) => t.table === 'costs_monthly')!.failures;
      expect(failures).toEqual([
        expect.objectContaining({
          dataSourceId: ds,
          month: MONTH,
          code: 'COMPACTION_DAY_MISSING',
          days: [DAY],
        }),
      ]);
      expect(failures[0]!.message).toContain(DAY);
      // Untouched, byte for byte, and the views still read the day from it.
      expect(await readFile(join(out, monthly()))).toEqual(before.object);
      expect(await readFile(join(out, monthlyManifest()), 'utf8')).toBe(before.manifest);
      expect(await viewRows(out, DAY)).toBe(before.rows);
    }, 120_000);

    it(`the day's ${variant} deleted inside retention: the cost run exports the day again and the month compacts whole`, async () => {
      const out = await copyOfBase(`healed-${variant.replace(/ /g, '-')}`);
      const rows = await viewRows(out, DAY);
      await rm(join(out, dailyManifest(DAY)));
      if (variant === 'manifest and object') await rm(join(out, dailyObject(DAY)));

      const run = await costs(out);

      expect(run.code).toBe(0);
      expect(run.summary.repaired).toBeGreaterThanOrEqual(1);
      expect(failuresOf(run.summary)).toEqual([]);
      const manifest = JSON.parse(await readFile(join(out, dailyManifest(DAY)), 'utf8'));
      expect(manifest.rows).toBe(sim.costTruth(ds, DAY).rows);
      const month = JSON.parse(await readFile(join(out, monthlyManifest()), 'utf8'));
      expect(month.sources.map((x: { day: string }) => x.day)).toContain(DAY);
      expect(await viewRows(out, DAY)).toBe(rows);
      // And the next run finds nothing to do: the month is current.
      const again = await costs(out);
      expect(again.code).toBe(0);
      expect(again.summary.repaired).toBe(0);
    }, 120_000);
  }
});

describe('a day gone with its manifest keeps its month read compacted until the day is back', () => {
  it('its re-export failing, the run ends with the views still reading the day from the monthly object; the next run heals it', async () => {
    const out = await copyOfBase('gone-refetch-fails');
    const rows = await viewRows(out, DAY);
    expect(rows).toBeGreaterThan(0);
    await rm(join(out, dailyManifest(DAY)));
    await rm(join(out, dailyObject(DAY)));

    // A run over the month (so it hands months to their days), every cost page refused.
    sim.injectFault({ path: '/cost-analysis/cost/list', kind: '403', times: 100_000 });
    let failed: Awaited<ReturnType<typeof costs>>;
    try {
      failed = await costs(out, '--from', FROM, '--to', TO);
    } finally {
      sim.clearFaults();
    }

    expect(failed.code).not.toBe(0);
    expect(failed.err).toContain('daily units damaged in compacted months');
    expect(failed.err).toContain(dailyManifest(DAY));
    // The month was not handed to its days, one of which is gone: the rows are still read.
    expect(await viewRows(out, DAY)).toBe(rows);

    const healed = await costs(out);
    expect(healed.code).toBe(0);
    expect(healed.summary.repaired).toBeGreaterThanOrEqual(1);
    expect(failuresOf(healed.summary)).toEqual([]);
    expect(await viewRows(out, DAY)).toBe(rows);
  }, 120_000);
});

describe('a daily manifest that does not parse proves nothing of its day', () => {
  it('the compaction step names the day; a cost run exports it again and the month compacts whole', async () => {
    const out = await copyOfBase('garbled-daily-manifest');
    const rows = await viewRows(out, DAY);
    await writeFile(join(out, dailyManifest(DAY)), 'not a manifest\n');

    const step = await compactConfirmedMonths({ client: clientOf(), sink: dirSink(out), runId: 'garbled' });
    const run = await costs(out);

    expect(step.tables.find((t) => t.table === 'costs_monthly')!.failures).toEqual([
      expect.objectContaining({
        dataSourceId: ds,
        month: MONTH,
        code: 'COMPACTION_DAY_MISSING',
        days: [DAY],
      }),
    ]);
    expect(run.code).toBe(0);
    expect(failuresOf(run.summary)).toEqual([]);
    expect(JSON.parse(await readFile(join(out, dailyManifest(DAY)), 'utf8')).rows).toBe(
      sim.costTruth(ds, DAY).rows,
    );
    expect(await viewRows(out, DAY)).toBe(rows);
  }, 120_000);
});

describe('a missing day while the monthly object itself is damaged', () => {
  /** The compaction step alone (a cost run exports a missing day inside retention again). */
  for (const variant of ['manifest', 'object'] as const) {
    it(`the day's ${variant} deleted: the unit fails naming the day, nothing is rewritten, the month is read from its days`, async () => {
      const out = await copyOfBase(`damaged-${variant}`);
      await truncate(join(out, monthly()), 100);
      const before = {
        object: await readFile(join(out, monthly())),
        manifest: await readFile(join(out, monthlyManifest()), 'utf8'),
      };
      await rm(join(out, variant === 'manifest' ? dailyManifest(DAY) : dailyObject(DAY)));

      const failures = (
        await compactConfirmedMonths({ client: clientOf(), sink: dirSink(out), runId: 'absence' })
      ).tables.flatMap((t) => t.failures.map((f) => ({ table: t.table, ...f })));

      const [failure, ...more] = failures.filter((f) => f.table === 'costs_monthly');
      expect(more).toEqual([]);
      expect(failure).toMatchObject({ dataSourceId: ds, month: MONTH, code: 'COMPACTION_DAY_MISSING' });
      expect(failure!.message).toContain(DAY);
      expect(await readFile(join(out, monthly()))).toEqual(before.object);
      expect(await readFile(join(out, monthlyManifest()), 'utf8')).toBe(before.manifest);
      // A damaged monthly object is not read: the month is read from its days.
      const state = JSON.parse(await readFile(join(out, 'compaction_state', 'costs.json'), 'utf8'));
      expect(state.through_month === null || state.through_month < MONTH).toBe(true);
    }, 120_000);
  }
});

describe('a day leaves a compacted month only by its own proven removal', () => {
  const held = [
    { day: '2026-01-19', key: 'costs/billed_date=2026-01-19/ds.parquet', rows: 4 },
    { day: '2026-01-20', key: 'costs/billed_date=2026-01-20/ds.parquet', rows: 3 },
    { day: '2026-01-21', key: null, rows: 0 },
    { day: '2026-01-22', key: 'costs/billed_date=2026-01-22/ds.parquet', rows: 2 },
  ];
  it('a missing daily manifest, or one naming no object without removedBecause, is an unproven drop', () => {
    expect(
      unprovenDrops(held, [
        { day: '2026-01-19', key: 'costs/billed_date=2026-01-19/ds.parquet' },
        { day: '2026-01-20', key: null },
      ]),
    ).toEqual([
      { day: '2026-01-20', why: 'its daily manifest names no object and records no proven removal' },
      { day: '2026-01-22', why: 'its daily manifest is missing' },
    ]);
  });
  it('a day the month held no row of drops nothing, its daily manifest missing or not', () => {
    expect(unprovenDrops([{ day: '2026-01-21', key: null, rows: 0 }], [])).toEqual([]);
  });
  it("a removal the day's manifest records with the gate's proof, a restated day and a new day drop nothing", () => {
    expect(
      unprovenDrops(held, [
        { day: '2026-01-19', key: 'costs/billed_date=2026-01-19/ds.parquet' },
        { day: '2026-01-20', key: null, removedBecause: 'cost/list empty twice; cost/analyze counts 0 rows' },
        { day: '2026-01-21', key: 'costs/billed_date=2026-01-21/ds.parquet' },
        { day: '2026-01-22', key: 'costs/billed_date=2026-01-22/ds.parquet' },
        { day: '2026-01-23', key: null },
      ]),
    ).toEqual([]);
    expect(unprovenDrops(undefined, [])).toEqual([]);
  });
});

describe('the verifier checks a compacted month against the days of its month', () => {
  it('a fresh export is all as recorded, ledger and compaction_state files included', async () => {
    const report = await verifyDestination(dirSink(await copyOfBase('verify-clean')), { checksums: true });
    expect(report.findings).toEqual([]);
    expect(report.bookkeeping).toBeGreaterThan(2);
    // The verifier finds a monthly table's days under its name without _monthly.
    expect(compactedTables.map((t) => t.name)).toEqual(compactedTables.map((t) => `${t.daily.name}_monthly`));
  });

  it('names a day the monthly manifest holds and the daily side lacks; costs --verify exports it again and then finds nothing', async () => {
    const out = await copyOfBase('verify-missing');
    await rm(join(out, dailyManifest(DAY)));
    await rm(join(out, dailyObject(DAY)));

    const report = await verifyDestination(dirSink(out), { checksums: false });
    const run = await costsText(out, '--verify');

    expect(report.findings).toContainEqual({ key: dailyManifest(DAY), why: 'compacted-day-missing' });
    expect(run.code).toBe(0);
    expect(run.out).not.toContain('compacted-day-missing');
    expect((await verifyDestination(dirSink(out), { checksums: true })).findings).toEqual([]);
  });

  it('names a monthly manifest that leaves out a day of its month', async () => {
    const out = await copyOfBase('verify-incomplete');
    const m = JSON.parse(await readFile(join(out, monthlyManifest()), 'utf8'));
    const sources = m.sources.filter((s: { day: string }) => s.day !== `${MONTH}-21`);
    expect(sources.length).toBe(m.sources.length - 1);
    await writeFile(join(out, monthlyManifest()), JSON.stringify({ ...m, sources }, null, 2));

    const report = await verifyDestination(dirSink(out), { checksums: false });

    expect(report.findings).toEqual([{ key: monthly(), why: 'compaction-incomplete' }]);
  });

  it('names a ledger file and a compaction_state file that do not parse', async () => {
    const out = await copyOfBase('verify-bookkeeping');
    const ledger = await firstFile(join(out, 'ledger'));
    await writeFile(ledger, '{"table_name": "costs", "row_count": 3\n');
    await writeFile(join(out, 'compaction_state', 'focus.json'), 'garbled\n');

    const report = await verifyDestination(dirSink(out), { checksums: false });

    expect(report.findings).toEqual(
      expect.arrayContaining([
        { key: ledger.slice(out.length + 1), why: 'unparsable' },
        { key: 'compaction_state/focus.json', why: 'unparsable' },
      ]),
    );
  });
});

/** The first file under a folder, depth first. */
async function firstFile(folder: string): Promise<string> {
  const [entry] = (await readdir(folder, { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  );
  const path = join(folder, entry!.name);
  return entry!.isDirectory() ? firstFile(path) : path;
}

describe('compaction_state is derived: rebuilt, never fatal, never corrected silently', () => {
  const stateFile = (out: string) => join(out, 'compaction_state', 'costs.json');

  it('a garbled state is rebuilt by the next run with a warning, --verify included', async () => {
    const out = await copyOfBase('state-garbled');
    const good = await readFile(stateFile(out), 'utf8');
    await writeFile(stateFile(out), '{"table_name":"costs","through_month":');

    const run = await costs(out, '--verify');

    expect(run.code).toBe(0);
    const line = run.summary.compaction.tables.find((t: { table: string }) => t.table === 'costs_monthly');
    expect(line.stateCorrected).toMatch(/^unreadable \(not JSON/);
    expect(await readFile(stateFile(out), 'utf8')).toBe(good);
    expect(run.summary.verify.findings).toEqual([]);
    expect(run.err).toContain('compaction_state corrected');
  });

  it('a state raised by hand is lowered back, and the run says so', async () => {
    const out = await copyOfBase('state-raised');
    const good = await readFile(stateFile(out), 'utf8');
    const raised = { table_name: 'costs', through_month: '2099-12', through_date: '2099-12-31' };
    await writeFile(stateFile(out), `${JSON.stringify(raised)}\n`);

    const run = await costsText(out);

    expect(run.code).toBe(0);
    expect(run.out).toMatch(
      /WARNING costs_monthly: compaction_state said through 2099-12, .* lowered to \d{4}-\d\d/,
    );
    expect(await readFile(stateFile(out), 'utf8')).toBe(good);
  });
});

describe('units mark a month; only the run, before its units, and the compaction step write compaction_state', () => {
  const later = monthBack(1);
  const stateFile = (out: string) => join(out, 'compaction_state', 'costs.json');
  const raise = (out: string, month: string) =>
    writeFile(
      stateFile(out),
      `${JSON.stringify({ table_name: 'costs', through_month: month, through_date: lastDayOf(month) })}\n`,
    );
  const through = async (out: string) => JSON.parse(await readFile(stateFile(out), 'utf8')).through_month;

  it('the daily tables with compacted months are the ones compaction-state.ts names', () => {
    expect([...COMPACTED_DAILY_TABLES]).toEqual(compactedTables.map((t) => t.daily.name));
  });

  it('marks under keys of their own lose none; the next run lowers the state below the earliest', async () => {
    const out = await copyOfBase('state-marks');
    await raise(out, later);
    const sink = dirSink(out);
    await Promise.all([
      markCompactionDirty(sink, 'costs', later, ds),
      markCompactionDirty(sink, 'costs', MONTH, ds),
      markCompactionDirty(sink, 'costs', MONTH, ds),
    ]);
    expect((await dirtyMarks(sink, 'costs')).map((m) => m.month).sort()).toEqual([MONTH, MONTH, later]);
    expect(await through(out)).toBe(later); // a mark never writes the shared state

    await leaveCompactionFor(sink, []);

    expect(await through(out)).toBe(monthBefore(MONTH));
  });

  // Last: it restates two days in the simulator.
  it('two units restating days of two compacted months at once: the state ends below both, and only the run wrote it', async () => {
    const out = await copyOfBase('state-race');
    await raise(out, later); // both months read compacted
    sim.resync(ds, `${MONTH}-10`, { costFactor: 3 });
    sim.resync(ds, `${later}-10`, { costFactor: 3 });
    const events: string[] = [];
    const sink = racing(dirSink(out), events);
    const client = new CloudforetClient({
      endpoint: sim.url,
      token: sim.issueToken(),
      dispatcher: new Agent(),
    });

    // No focus pass, so no compaction step: what is left is what the units and the run wrote.
    const run = await runCostExport(
      { client, sink, focus: false, unifiedCosts: false },
      { from: `${MONTH}-10`, to: `${later}-10` },
    );

    expect(run.failed).toBe(0);
    expect(run.written).toBe(2);
    expect(await through(out)).toBe(monthBefore(MONTH));
    const firstObject = events.findIndex((e) => e.startsWith('begin costs/'));
    expect(firstObject).toBeGreaterThan(0);
    expect(events.filter((e) => e.startsWith('put state')).length).toBe(1);
    expect(events.findIndex((e) => e.startsWith('put state'))).toBeLessThan(firstObject);

    // The next whole run compacts both months again and raises the state back.
    const next = await costs(out);
    expect(next.code).toBe(0);
    expect(await through(out)).toBe(later);
    expect(await dirtyMarks(dirSink(out), 'costs')).toEqual([]);
  }, 60_000);
});

/**
 * A sink on which two readers of the costs state both read it before either writes (a barrier of
 * two, or 1.5 s), and a write lowering it to MONTH lands after the others: the interleaving that
 * lost an update when units lowered the state by read-modify-write.
 */
function racing(sink: Sink, events: string[]): Sink {
  const key = 'compaction_state/costs.json';
  let waiting: Array<() => void> = [];
  return {
    ...sink,
    read: async (k) => {
      if (k === key) {
        await new Promise<void>((resolve) => {
          waiting.push(resolve);
          if (waiting.length >= 2) {
            for (const r of waiting) r();
            waiting = [];
          } else setTimeout(resolve, 1500);
        });
      }
      return sink.read(k);
    },
    put: async (k, body, type) => {
      if (k === key) {
        events.push(`put state ${body.trim()}`);
        if (body.includes(`"through_month":"${MONTH}"`)) await new Promise((r) => setTimeout(r, 300));
      }
      return sink.put(k, body, type);
    },
    begin: (k, type) => {
      events.push(`begin ${k}`);
      return sink.begin(k, type);
    },
  };
}
