// The day export end to end in one process (unit tier): the simulator answers the real client
// through a dispatcher with no socket, the cost days go to a directory sink in a temporary
// directory, and what was written is read back by hyparquet alone: the rows are the simulator's,
// the manifest describes the object, and a restated day replaces the object while its earlier
// bytes are kept as a revision with a line in the revisions ledger.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type UnitFailure, unitExecutor } from '../../functions/lib/costs/days/day-runner.ts';
import type { CostUnitResult } from '../../functions/lib/costs/days/export-day.ts';
import type { PlannedUnit } from '../../functions/lib/costs/planning/plan-units.ts';
import { listDataSources } from '../../functions/lib/costs/sources/data-sources.ts';
import { costManifestKey, costObjectKey } from '../../functions/lib/costs/sources/day-keys.ts';
import { addDays, utcDay } from '../../functions/lib/dates.ts';
import { revisionKey } from '../../functions/lib/destination/layout.ts';
import { parseManifest } from '../../functions/lib/destination/manifest.ts';
import { silentLogger } from '../../functions/lib/log.ts';
import { readWithHyparquet } from '../../harness/hyparquet-reader.ts';
import { type InProcessCloudforet, inProcessCloudforet, tempSink } from '../support/in-process-cloudforet.ts';

const TO = addDays(utcDay(new Date()), -1);
const FROM = addDays(TO, -3);
const DAYS = [FROM, addDays(FROM, 1), addDays(FROM, 2)];

let cf: InProcessCloudforet;
let out: Awaited<ReturnType<typeof tempSink>>;
let ds: string;

beforeAll(async () => {
  cf = inProcessCloudforet({
    seed: 50,
    dataSources: 2,
    from: FROM,
    to: TO,
    rowsPerDay: 12,
    cloudServices: 10,
  });
  out = await tempSink('day-export');
  [ds] = cf.sim.dataSourceIds() as [string];
});
afterAll(async () => {
  await cf.close();
  await out.remove();
});

/** The day runner's executor over the data sources as listed, one run id. */
async function exportDays(runId: string, units: readonly PlannedUnit[]) {
  const dataSources = await listDataSources(cf.client);
  const exec = await unitExecutor(
    { client: cf.client, sink: out.sink, runId, log: silentLogger },
    dataSources,
  );
  const results: Array<CostUnitResult | UnitFailure> = [];
  for (const unit of units) results.push(await exec.run(unit));
  return results;
}

const bytesOf = (key: string) => readFile(join(out.dir, key));
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

describe('one data source, three days, to a directory', () => {
  it('writes each day as one object whose rows are the simulator rows of that day', async () => {
    const results = await exportDays(
      'run-1',
      DAYS.map((date) => ({ dataSourceId: ds, date, reason: 'no-manifest' })),
    );

    expect(results.map((r) => ('outcome' in r ? r.outcome : r.code))).toEqual([
      'written',
      'written',
      'written',
    ]);
    for (const date of DAYS) {
      const truth = cf.sim.costRows(ds, date);
      const rows = await readWithHyparquet(await bytesOf(costObjectKey(ds, date)));
      expect(truth.length).toBeGreaterThan(0);
      expect(rows.map((r) => r['cost_id']).sort()).toEqual(truth.map((r) => r.cost_id).sort());
      expect(new Set(rows.map((r) => r['data_source_id']))).toEqual(new Set([ds]));
      expect(sum(rows.map((r) => r['cost'] as number))).toBeCloseTo(cf.sim.costTruth(ds, date).costSum, 6);
    }
  });

  it('leaves a manifest per day that describes the object as written', async () => {
    for (const date of DAYS) {
      const bytes = await bytesOf(costObjectKey(ds, date));
      const manifest = parseManifest(await readFile(join(out.dir, costManifestKey(ds, date)), 'utf8'));
      const truth = cf.sim.costTruth(ds, date);

      expect(manifest).toMatchObject({
        table: 'costs',
        partition: date,
        dataSourceId: ds,
        key: costObjectKey(ds, date),
        rows: truth.rows,
        totalCount: truth.rows,
        bytes: bytes.length,
        sha256: sha256(bytes),
        runId: 'run-1',
      });
      expect(manifest!.costSum).toBeCloseTo(truth.costSum, 6);
      expect(sum(manifest!.groups!.map((g) => g.rows))).toBe(truth.rows);
    }
  });

  it('a restated day replaces its object and keeps the one it replaced as a revision', async () => {
    const [date] = DAYS as [string];
    const key = costObjectKey(ds, date);
    const before = await bytesOf(key);
    const beforeSum = cf.sim.costTruth(ds, date).costSum;
    cf.sim.resync(ds, date, { costFactor: 3 });

    const [result] = await exportDays('run-2', [{ dataSourceId: ds, date, reason: 'cost-changed' }]);

    expect(result).toMatchObject({ outcome: 'written', rows: cf.sim.costTruth(ds, date).rows });
    const after = await bytesOf(key);
    const rows = await readWithHyparquet(after);
    expect(sum(rows.map((r) => r['cost'] as number))).toBeCloseTo(cf.sim.costTruth(ds, date).costSum, 6);
    expect(sum(rows.map((r) => r['cost'] as number))).toBeCloseTo(3 * beforeSum, 2);
    expect(rows.map((r) => r['cost_id']).sort()).toEqual(
      cf.sim
        .costRows(ds, date)
        .map((r) => r.cost_id)
        .sort(),
    );
    const manifest = parseManifest(await readFile(join(out.dir, costManifestKey(ds, date)), 'utf8'));
    expect(manifest).toMatchObject({ runId: 'run-2', sha256: sha256(after), bytes: after.length });
    // The earlier bytes, kept for good under the revisions table, and the ledger line naming them.
    expect(await bytesOf(revisionKey(key, sha256(before)))).toEqual(before);
    const ledger = await ledgerLines(join(out.dir, 'ledger'));
    const line = ledger.find((l) => l['table_name'] === 'costs' && l['object_key'] === key);
    expect(line).toMatchObject({
      partition_value: date,
      revision_key: revisionKey(key, sha256(before)),
      revision_sha256: sha256(before),
      outcome: 'replaced',
      reason: 'cost-changed',
      run_id: 'run-2',
    });
    // The other days are as they were: one revision in all.
    expect(
      (await readdir(join(out.dir, 'costs_revisions'), { recursive: true })).filter((f) =>
        f.endsWith('.parquet'),
      ),
    ).toHaveLength(1);
  });
});

/** Every JSON line under the ledger folder. */
async function ledgerLines(dir: string): Promise<Array<Record<string, unknown>>> {
  const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
  const lines: Array<Record<string, unknown>> = [];
  for (const f of files) {
    const text = await readFile(join(f.parentPath, f.name), 'utf8');
    for (const line of text.split('\n').filter((l) => l.trim() !== '')) {
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {}
    }
  }
  return lines;
}
