// What one refresh of CID's FOCUS dashboard opens once the focus table's partitions are registered
// (functions/lib/compaction/focus-catalog.ts): the catalog synced over the reading stage's export
// through the real GlueClient and the loopback Glue responder, then the table read as Athena reads
// registered partitions (harness/duckdb-catalog.ts). CID's datasets select the whole table (its
// filters prune no partition: docs/focus.md), so a refresh opens every object of every partition:
// the figure, against the daily objects it opened before and the bound of issue 49 (12 × data
// sources + the open month's days × data sources). Its BilledCost is checked against the daily
// objects' whole: the same rows, from fewer objects.
import { GlueClient } from '@aws-sdk/client-glue';
import { syncFocusCatalog, WHOLE_MONTH_DAY } from '../../functions/lib/compaction/focus-catalog.ts';
import { gluePartitions } from '../../functions/lib/compaction/glue-partitions.ts';
import { dirSink } from '../../functions/lib/storage/dir-sink.ts';
import { focusTable } from '../../functions/lib/tables/focus.ts';
import { athenaOver } from '../../harness/duckdb-athena.ts';
import { createCatalogView } from '../../harness/duckdb-catalog.ts';
import { startGlue } from '../../harness/glue-responder.ts';
import { glueTableInput } from '../../infra/athena-tables.ts';

export interface CidRefreshReading {
  /** Objects a refresh opens through the registered partitions. */
  readonly objects: number;
  /** Objects it opened before: every daily focus object. */
  readonly dailyObjects: number;
  /** 12 × data sources + days of the open month × data sources. */
  readonly bound: number;
  readonly compactedMonths: number;
  readonly openDays: number;
  readonly rows: number;
  readonly dailyRows: number;
  readonly billedCost: number;
  readonly dailyBilledCost: number;
}

const ROOT = 's3://bench-bucket/export/';
const DATABASE = 'cloudforet_export';

/** Glue's API spelling (PascalCase) of the CDK table input; parameter maps kept as they are. */
function glueApi(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(glueApi);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k.charAt(0).toUpperCase() + k.slice(1),
      k === 'parameters' ? v : glueApi(v),
    ]),
  );
}

export async function measureCidRefresh(out: string, dataSources: number): Promise<CidRefreshReading> {
  const glue = await startGlue({
    [DATABASE]: [glueApi(glueTableInput(focusTable as never, `${ROOT}focus/`, '2025-01-01')) as never],
  });
  const client = new GlueClient({
    endpoint: glue.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'bench' },
  });
  const db = await athenaOver(out);
  try {
    await syncFocusCatalog(dirSink(out), gluePartitions(client, DATABASE, focusTable.name), ROOT);
    const partitions = glue.partitions(DATABASE, focusTable.name).map((p) => ({
      values: [p.Values[0]!, p.Values[1]!] as const,
      location: String(p.StorageDescriptor.Location),
    }));
    const objects = await createCatalogView(
      db.connection,
      {
        name: 'focus_catalog',
        columns: focusTable.columns.map((c) => c.name),
        partitionKeys: [focusTable.partitionKey, focusTable.dayKey!],
      },
      partitions,
      ROOT,
      out,
    );
    const sums = async (table: string) =>
      (await db.run(`SELECT count(*) AS n, sum(BilledCost) AS s FROM ${table}`))[0]!;
    const [catalog, daily] = [await sums('focus_catalog'), await sums('focus')];
    const dailyObjects = Number(
      (
        await db.run(
          `SELECT count(DISTINCT filename) AS n FROM read_parquet('${out}/focus/*/*/*.parquet', filename = true)`,
        )
      )[0]!.n,
    );
    // Days read from their daily objects: the open month's (and last month's, before Cloudforet confirms it).
    const openDays = partitions.filter((p) => p.values[1] !== WHOLE_MONTH_DAY).length;
    return {
      objects,
      dailyObjects,
      bound: 12 * dataSources + openDays * dataSources,
      compactedMonths: partitions.filter((p) => p.values[1] === WHOLE_MONTH_DAY).length,
      openDays,
      rows: Number(catalog.n),
      dailyRows: Number(daily.n),
      billedCost: Number(catalog.s),
      dailyBilledCost: Number(daily.s),
    };
  } finally {
    db.close();
    client.destroy();
    await glue.stop();
  }
}

export function describeCidRefresh(c: CidRefreshReading): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const same =
    c.rows === c.dailyRows &&
    Math.abs(c.billedCost - c.dailyBilledCost) <= 1e-6 * Math.abs(c.dailyBilledCost);
  return (
    `CID's refresh (the focus table through its registered Glue partitions: ${c.compactedMonths} confirmed months compacted, ` +
    `${c.openDays} days of open months daily): ${n(c.objects)} objects, ${n(c.dailyObjects)} before; ` +
    `at most ${n(c.bound)} (12 × data sources + open days × data sources): ${c.objects <= c.bound ? 'met' : 'NOT MET'}; ` +
    `${n(c.rows)} rows, BilledCost ${c.billedCost.toFixed(2)} against the daily objects' ${n(c.dailyRows)} rows, ` +
    `${c.dailyBilledCost.toFixed(2)}: ${same ? 'the same' : 'NOT THE SAME'}.`
  );
}
