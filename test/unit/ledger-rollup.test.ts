// The run ledger's rollup (export/ledger-rollup.ts) over ledgers written by hand across days:
// each unit's latest line, whatever order the lines were rolled up in, including a line a
// concurrent run recorded after the rollup of its day had listed that day.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addDays } from '../../functions/lib/dates.ts';
import { ledgerKey, ledgerPrefix } from '../../functions/lib/destination/layout.ts';
import { appendLedger, type ExportUnitRecord, recordExportUnit } from '../../functions/lib/export/ledger.ts';
import { repairLedgerLines } from '../../functions/lib/export/ledger-repair.ts';
import { rewindRollup, rollUpLedger } from '../../functions/lib/export/ledger-rollup.ts';
import { dirSink } from '../../functions/lib/storage/dir-sink.ts';
import type { Sink } from '../../functions/lib/storage/sink.ts';
import { exportUnitsLatestTable, exportUnitsTable } from '../../functions/lib/tables/ledger.ts';

const DAY = '2026-03-10';

/** A small deterministic generator: the ledgers differ per seed, the same each run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

function line(rand: () => number, exportDay: string, ms: number): ExportUnitRecord {
  const table = rand() < 0.7 ? 'costs' : rand() < 0.5 ? 'focus' : 'projects';
  return {
    table_name: table,
    partition_value: addDays('2026-01-01', Math.floor(rand() * 20)),
    source: table === 'projects' ? 'domain' : `ds-${Math.floor(rand() * 3)}`,
    scope: table === 'projects' ? 'domain' : null,
    object_key: rand() < 0.1 ? null : `k-${Math.floor(rand() * 1e6)}`,
    row_count: Math.floor(rand() * 100),
    total_count: null,
    cost_sum: rand() * 10,
    analyze_rows: null,
    analyze_cost_sum: null,
    bytes: 100,
    schema_version: 1,
    run_id: `run-${exportDay}`,
    exported_at: new Date(Date.parse(`${exportDay}T00:00:00.000Z`) + ms).toISOString(),
    last_synchronized_at: null,
    change_check: '{}',
  };
}

const unit = (r: { partition_value: string; scope: string | null; source: string }, table: string) =>
  `${table}|${r.source}|${r.partition_value}|${r.scope ?? ''}`;

/** Every line's latest version per unit, computed the plain way. */
function latest(lines: readonly ExportUnitRecord[]): Map<string, ExportUnitRecord> {
  const out = new Map<string, ExportUnitRecord>();
  for (const l of lines) {
    const held = out.get(unit(l, l.table_name));
    if (!held || held.exported_at <= l.exported_at) out.set(unit(l, l.table_name), l);
  }
  return out;
}

/** What the rollup objects hold, as export_units rows. */
async function rolledUp(sink: Sink): Promise<Map<string, ExportUnitRecord>> {
  const out = new Map<string, ExportUnitRecord>();
  for (const key of await sink.list(ledgerPrefix(exportUnitsLatestTable.name))) {
    const table = /table_name=([^/]+)\//.exec(key)![1]!;
    for (const text of (await sink.read(key))!.split('\n').filter(Boolean)) {
      const row = JSON.parse(text) as Omit<ExportUnitRecord, 'table_name'>;
      expect(out.has(unit(row, table))).toBe(false);
      out.set(unit(row, table), { table_name: table, ...row });
    }
  }
  return out;
}

describe('the run ledger rollup', () => {
  let dir: string;
  let sink: Sink;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ledger-rollup-'));
    sink = dirSink(dir);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const append = (l: ExportUnitRecord) =>
    appendLedger(sink, ledgerKey(exportUnitsTable, l.exported_at, `_manifests/${l.table_name}/x`), l);

  it.each([1, 2, 3, 4, 5])('holds the latest line of every unit, day after day (seed %i)', async (seed) => {
    const rand = random(seed);
    const written: ExportUnitRecord[] = [];
    for (let d = 0; d < 6; d++) {
      const day = addDays(DAY, d);
      for (let i = 0; i < 40; i++) {
        written.push(line(rand, day, Math.floor(rand() * 40_000_000)));
        await append(written.at(-1)!);
      }
      const before = (await rolledUp(sink)).size;
      await rollUpLedger(sink, new Date(`${day}T12:00:00.000Z`));
      // A straggler of a concurrent run: a unit exported before midnight, its line recorded after
      // this day's rollup listed the lines.
      written.push(line(rand, addDays(day, -1), 23 * 3_600_000));
      await append(written.at(-1)!);

      const now = await rolledUp(sink);
      expect(now.size).toBeGreaterThanOrEqual(before);
    }
    await rollUpLedger(sink, new Date(`${addDays(DAY, 6)}T12:00:00.000Z`));

    expect(await rolledUp(sink)).toEqual(latest(written));
  });

  it('leaves a line that does not parse out and names it; the other lines roll up', async () => {
    const rand = random(11);
    const good = line(rand, DAY, 1000);
    const bad = line(rand, DAY, 2000);
    await append(good);
    const before = new Set(await sink.list('ledger/'));
    await append(bad);
    const badKey = (await sink.list('ledger/')).find((k) => !before.has(k))!;
    const text = (await sink.read(badKey))!;
    await sink.put(badKey, text.slice(0, Math.floor(text.length / 2)), 'application/x-ndjson');

    const summary = await rollUpLedger(sink, new Date(`${DAY}T12:00:00.000Z`));

    expect(summary.unreadable).toEqual([badKey]);
    expect(summary.linesRead).toBe(1);
    expect(await rolledUp(sink)).toEqual(latest([good]));
  });

  it('sets aside a rollup object that does not parse and rebuilds it from every line', async () => {
    const rand = random(12);
    const written = Array.from({ length: 30 }, (_, i) => line(rand, DAY, 1000 * (i + 1)));
    for (const l of written) await append(l);
    await rollUpLedger(sink, new Date(`${DAY}T12:00:00.000Z`));
    const [rollupKey] = await sink.list(ledgerPrefix(exportUnitsLatestTable.name));
    const text = (await sink.read(rollupKey!))!;
    await sink.put(rollupKey!, text.slice(0, Math.floor(text.length / 2)), 'application/x-ndjson');
    // A later line of that object's table and source, so the next rollup merges into it.
    const later = { ...written[0]!, exported_at: `${addDays(DAY, 1)}T01:00:00.000Z`, row_count: 7 };
    await append(later);

    const first = await rollUpLedger(sink, new Date(`${addDays(DAY, 1)}T12:00:00.000Z`));
    expect(first.rebuildFromStart).toEqual([rollupKey]);
    expect(await sink.read(`_damaged/${rollupKey}`)).toBe(text.slice(0, Math.floor(text.length / 2)));
    await rollUpLedger(sink, new Date(`${addDays(DAY, 1)}T13:00:00.000Z`));

    expect(await rolledUp(sink)).toEqual(latest([...written, later]));
  });

  it('--verify rebuilds a line from its manifest while that is its version, and sets an older one aside', async () => {
    const manifestKey = '_manifests/costs/billed_date=2026-03-01/ds-1.json';
    const manifest = (exportedAt: string, rows: number) => ({
      table: 'costs',
      partition: '2026-03-01',
      dataSourceId: 'ds-1',
      key: 'costs/billed_date=2026-03-01/ds-1.parquet',
      rows,
      totalCount: rows,
      bytes: 100,
      runId: 'r',
      exportedAt,
    });
    const old = manifest(`${DAY}T01:00:00.000Z`, 5);
    const now = manifest(`${DAY}T02:00:00.000Z`, 6);
    await recordExportUnit(sink, manifestKey, old);
    await recordExportUnit(sink, manifestKey, now);
    await sink.put(manifestKey, JSON.stringify(now), 'application/json');
    const keys = (await sink.list('ledger/')).sort();
    const [oldKey, nowKey] = keys.sort((a, b) => (/~(\d+)-/.exec(a)![1]! < /~(\d+)-/.exec(b)![1]! ? -1 : 1));
    const nowText = (await sink.read(nowKey!))!;
    for (const key of [oldKey!, nowKey!]) await sink.put(key, '{"table_name": "co', 'application/x-ndjson');
    // A rollup two days on leaves the damaged lines out, and its watermark passes their day.
    expect((await rollUpLedger(sink, new Date(`${addDays(DAY, 2)}T12:00:00.000Z`))).unreadable).toHaveLength(
      2,
    );
    expect(await rolledUp(sink)).toEqual(new Map());

    const repair = await repairLedgerLines(sink, [oldKey!, nowKey!]);
    await rewindRollup(sink, repair.rebuiltDays);
    await rollUpLedger(sink, new Date(`${addDays(DAY, 2)}T13:00:00.000Z`));

    expect([...(await rolledUp(sink)).values()].map((r) => r.exported_at)).toEqual([now.exportedAt]);
    expect(repair.rebuilt).toEqual([nowKey]);
    expect(await sink.read(nowKey!)).toBe(nowText);
    expect(repair.setAside).toEqual([{ key: oldKey, keptAt: `_damaged/${oldKey}` }]);
    expect(await sink.read(oldKey!)).toBeUndefined();
    expect(await sink.read(`_damaged/${oldKey}`)).toBe('{"table_name": "co');
  });

  it('reads only the export days from the day before its last rollup, once it has one', async () => {
    const rand = random(9);
    for (let d = 0; d < 5; d++) await append(line(rand, addDays(DAY, d), 1000));

    const first = await rollUpLedger(sink, new Date(`${addDays(DAY, 4)}T12:00:00.000Z`));
    await append(line(rand, addDays(DAY, 5), 1000));
    const second = await rollUpLedger(sink, new Date(`${addDays(DAY, 5)}T12:00:00.000Z`));

    expect(first).toMatchObject({ linesRead: 5 });
    expect(first.from).toBeUndefined();
    // From day 3 (the day before the last rollup's): the lines of days 3, 4 and 5, not 0 to 2.
    expect(second).toMatchObject({ from: addDays(DAY, 3), linesRead: 3 });
  });

  it('catches a ledger longer than its budget up over several runs, whole days at a time', async () => {
    const rand = random(11);
    const written: ExportUnitRecord[] = [];
    for (let d = 0; d < 5; d++) {
      for (let i = 0; i < 3; i++) {
        written.push(line(rand, addDays(DAY, d), 1000 + i));
        await append(written.at(-1)!);
      }
    }
    const now = new Date(`${addDays(DAY, 4)}T12:00:00.000Z`);

    const runs = [];
    for (let i = 0; i < 5; i++) runs.push(await rollUpLedger(sink, now, 7));

    // Two days (6 lines) a run, each from the last day the run before read (days 0-1, 1-2, 2-3,
    // 3-4): caught up at the fourth; the fifth reads the day before and today again.
    expect(runs.map((r) => [r.linesRead, r.complete])).toEqual([
      [6, false],
      [6, false],
      [6, false],
      [6, true],
      [6, true],
    ]);
    expect(await rolledUp(sink)).toEqual(latest(written));
  });
});
