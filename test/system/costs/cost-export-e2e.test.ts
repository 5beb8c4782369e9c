// The cost Lambda handler end to end, invoked as Lambda would: simulator, s3rver, Secrets Manager.
// The first export of FROM..TO is the shared arrangement; a test that changes the source works on
// a day of its own after TO, so that the tests hold in any order.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler } from '../../../functions/cost-export.ts';
import { daysBetween } from '../../../functions/lib/dates.ts';
import { costTable } from '../../../functions/lib/tables/costs.ts';
import { BUCKET, type LocalAws, PREFIX, startLocalAws } from '../../../harness/local-aws.ts';
import { duckSchema } from '../../../harness/parquet-readers.ts';
import { getObjectBytes, listKeys } from '../../../harness/s3-server.ts';
import { downloadPrefix, readBothWays } from '../../support/export-reader.ts';
import { expectNoSecret } from '../../support/log-capture.ts';
import { monthBack } from '../../support/months.ts';

const MONTH_1 = monthBack(1);

const FROM = `${MONTH_1}-01`;
const TO = `${MONTH_1}-05`;
const EMPTIED_DAY = `${MONTH_1}-06`;
const FAILED_DAY = `${MONTH_1}-07`;
const context = { awsRequestId: 'req-e2e-1', functionName: 'cost-export' } as Context;

describe('cost export handler', () => {
  let local: LocalAws;
  let restoreEnv: () => void;
  const logs: string[] = [];
  let first: Awaited<ReturnType<typeof handler>>;

  beforeAll(async () => {
    local = await startLocalAws({
      seed: 11,
      dataSources: 3,
      from: FROM,
      to: FAILED_DAY,
      rowsPerDay: 1400,
      exactRowsPerDay: true,
    });
    restoreEnv = local.applyEnv();
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      logs.push(String(chunk));
      return true;
    });
    first = await handler({ from: FROM, to: TO }, context);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    restoreEnv();
    await local.stop();
  });

  it('publishes every (data source, day) with exactly the source rows, read back by DuckDB and Arrow', async () => {
    const { dir, keys } = await downloadPrefix(local.s3.client, BUCKET, `${PREFIX}/costs/`);

    expect(first.failed).toBe(0);
    expect(first.units).toBe(15);
    for (const ds of local.simulator.dataSourceIds()) {
      for (const date of daysBetween(FROM, TO)) {
        const truth = local.simulator.costTruth(ds, date);
        const key = `billed_date=${date}/${ds}.parquet`;
        expect(keys.includes(key), key).toBe(truth.rows > 0);
        if (truth.rows === 0) continue;
        const path = join(dir, key);
        const read = await readBothWays(path, new Uint8Array(await readFile(path)));
        expect(read.count, key).toBe(truth.rows);
        expect(read.costSum).toBeCloseTo(truth.costSum, 6);
        expect(new Set(read.rows.map((r) => r.cost_id)).size).toBe(truth.rows);
      }
    }
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the declared column types and keeps billed_date out of the file', async () => {
    const ds = local.simulator.dataSourceIds()[0]!;
    const { dir } = await downloadPrefix(local.s3.client, BUCKET, `${PREFIX}/costs/billed_date=${FROM}/`);

    const schema = await duckSchema(join(dir, `${ds}.parquet`));

    expect(Object.keys(schema).sort()).toEqual(costTable.columns.map((c) => c.name).sort());
    expect(schema).toMatchObject({
      cost: 'DOUBLE',
      usage_quantity: 'DOUBLE',
      tags: 'VARCHAR',
      exported_at: 'TIMESTAMP WITH TIME ZONE',
    });
    expect(schema).not.toHaveProperty('billed_date');
    await rm(dir, { recursive: true, force: true });
  });

  it('writes a manifest per unit outside the table folder', async () => {
    const ds = local.simulator.dataSourceIds()[1]!;

    const manifest = JSON.parse(
      Buffer.from(
        await getObjectBytes(
          local.s3.client,
          BUCKET,
          `${PREFIX}/_manifests/costs/billed_date=${TO}/${ds}.json`,
        ),
      ).toString(),
    );

    const truth = local.simulator.costTruth(ds, TO);
    expect(manifest).toMatchObject({
      table: 'costs',
      partition: TO,
      dataSourceId: ds,
      rows: truth.rows,
      totalCount: truth.rows,
      schemaVersion: 1,
    });
    expect(manifest.costSum).toBeCloseTo(truth.costSum, 6);
  });

  it('re-running the same range gives the same keys and no duplicate rows', async () => {
    const before = await listKeys(local.s3.client, BUCKET, `${PREFIX}/`);

    await handler({ from: FROM, to: TO }, context);
    const after = await listKeys(local.s3.client, BUCKET, `${PREFIX}/`);
    const ds = local.simulator.dataSourceIds()[0]!;
    const { dir } = await downloadPrefix(local.s3.client, BUCKET, `${PREFIX}/costs/billed_date=${FROM}/`);
    const path = join(dir, `${ds}.parquet`);
    const read = await readBothWays(path, new Uint8Array(await readFile(path)));

    // The run ledger gains a row per unit version; it is append-only by design. The unified-cost
    // month, exported again by every run, keeps the object it replaced (and no cost day is replaced).
    const revision = (k: string) => /^[^/]+\/[a-z_]+_revisions\//.test(k);
    const data = (keys: string[]) =>
      keys.filter((k) => !k.startsWith(`${PREFIX}/ledger/`) && !revision(k)).sort();
    expect(data(after)).toEqual(data(before));
    const kept = after.filter((k) => revision(k) && !before.includes(k));
    expect(kept).toEqual([
      expect.stringMatching(/\/unified_costs_revisions\/billed_month=[0-9-]+\/domain~[0-9a-f]{16}\.parquet$/),
    ]);
    expect(read.count).toBe(local.simulator.costTruth(ds, FROM).rows);
    await rm(dir, { recursive: true, force: true });
  });

  it('calls a day with no rows and nothing published empty, not removed', async () => {
    const summary = await handler({ date: `${MONTH_1}-20` }, context);

    expect(summary).toMatchObject({ units: 3, written: 0, removed: 0, empty: 3, failed: 0 });
  });

  it('removes the object of a day that lost all its rows', async () => {
    const ds = local.simulator.dataSourceIds()[2]!;
    const key = `${PREFIX}/costs/billed_date=${EMPTIED_DAY}/${ds}.parquet`;
    await handler({ date: EMPTIED_DAY, dataSourceIds: [ds] }, context);
    const published = await listKeys(local.s3.client, BUCKET, `${PREFIX}/costs/billed_date=${EMPTIED_DAY}/`);
    local.simulator.resync(ds, EMPTIED_DAY, { rowDelta: -1_000_000 });

    const summary = await handler({ date: EMPTIED_DAY, dataSourceIds: [ds] }, context);
    const keys = await listKeys(local.s3.client, BUCKET, `${PREFIX}/costs/billed_date=${EMPTIED_DAY}/`);

    expect(published).toContain(key);
    expect(summary).toMatchObject({ units: 1, removed: 1, empty: 0, failed: 0 });
    expect(keys).not.toContain(key);
  });

  it('leaves the previous object as it was when a unit fails in the middle', async () => {
    const ds = local.simulator.dataSourceIds()[0]!;
    const key = `${PREFIX}/costs/billed_date=${FAILED_DAY}/${ds}.parquet`;
    await handler({ date: FAILED_DAY, dataSourceIds: [ds] }, context);
    const before = await getObjectBytes(local.s3.client, BUCKET, key);
    local.simulator.resync(ds, FAILED_DAY, { costFactor: 2 });
    local.simulator.injectFault({ path: '/cost-analysis/cost/list', kind: '401', afterRequests: 1 });

    const failure = await handler({ date: FAILED_DAY, dataSourceIds: [ds] }, context).catch((e: Error) => e);
    const after = await getObjectBytes(local.s3.client, BUCKET, key);

    expect(failure).toMatchObject({ name: 'RunFailedError', code: 'RUN_FAILED' });
    expect(String((failure as Error).message)).toContain('ERROR_AUTHENTICATE_FAILURE');
    expect(Buffer.from(after).equals(Buffer.from(before))).toBe(true);
  });

  it('rejects an unknown data source id with a message naming it', async () => {
    const failure = await handler({ date: TO, dataSourceIds: ['ds-000000000000'] }, context).catch(
      (e: Error) => e,
    );

    expect(failure).toMatchObject({ code: 'UNKNOWN_DATA_SOURCE' });
    expect(String((failure as Error).message)).toContain('ds-000000000000');
  });

  it('never logs the client secret', () => {
    expect(logs.length).toBeGreaterThan(5);
    expectNoSecret(logs, local.token);
  });
});
