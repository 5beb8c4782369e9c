// The metric lines functions print, parsed as CloudWatch embedded metric format: the cost export's
// run figures and the freshness check's ages per data source, invoked as Lambda would on loopback.
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler as costExport } from '../../../functions/cost-export.ts';
import { handler as freshnessCheck } from '../../../functions/freshness-check.ts';
import { type LocalAws, startLocalAws } from '../../../harness/local-aws.ts';
import { expectNoSecret } from '../../support/log-capture.ts';
import { monthBack } from '../../support/months.ts';

const MONTH_2 = monthBack(2);

const FROM = `${MONTH_2}-01`;
const TO = `${MONTH_2}-03`;
const HOUR_MS = 3_600_000;

interface Emf {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: Array<{
      Namespace: string;
      Dimensions: string[][];
      Metrics: Array<{ Name: string; Unit: string }>;
    }>;
  };
  [key: string]: unknown;
}

describe('embedded-metric-format lines', () => {
  let local: LocalAws;
  let restoreEnv: () => void;
  const out: string[] = [];
  const everything: string[] = [];
  const emf = () =>
    out
      .flatMap((chunk) => chunk.split('\n'))
      .filter((line) => line.includes('"_aws"'))
      .map((line) => JSON.parse(line) as Emf);
  const withDimension = (name: string, lines = emf()) =>
    lines.filter((line) => line._aws.CloudWatchMetrics[0]!.Dimensions[0]!.includes(name));
  /** The cost export every test builds on, run once, and the metric lines it printed. */
  let summary: Awaited<ReturnType<typeof costExport>>;
  let costLines: Emf[];

  beforeAll(async () => {
    local = await startLocalAws({ seed: 5, dataSources: 2, from: FROM, to: TO, rowsPerDay: 20 });
    restoreEnv = local.applyEnv({ FRESHNESS_HOURS: '48' });
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out.push(String(chunk));
      everything.push(String(chunk));
      return true;
    });
    summary = await costExport({ from: FROM, to: TO }, { awsRequestId: 'req-m-1' } as Context);
    costLines = emf();
    await freshnessCheck({}, { awsRequestId: 'req-m-0' } as Context);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    restoreEnv();
    await local.stop();
  });

  it("prints the cost run's figures under the function's dimensions", async () => {
    const [line, ...more] = withDimension('function', costLines);

    expect(more).toEqual([]);
    expect(line!._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'CloudforetExport',
        Dimensions: [['service', 'function']],
        Metrics: [
          { Name: 'RowsExported', Unit: 'Count' },
          { Name: 'BytesExported', Unit: 'Bytes' },
          { Name: 'UnitsExported', Unit: 'Count' },
          { Name: 'UnitsUnchanged', Unit: 'Count' },
          { Name: 'UnitsFailed', Unit: 'Count' },
          { Name: 'ApiRetries', Unit: 'Count' },
        ],
      },
    ]);
    expect(line).toMatchObject({
      service: 'cloudforet-export',
      function: 'cost-export',
      RowsExported: summary.rows,
      BytesExported: summary.bytes,
      UnitsExported: 6,
      UnitsUnchanged: 0,
      UnitsFailed: 0,
    });
  });

  it('prints each data source its ages, and the worst ages for the alarms', async () => {
    out.length = 0;

    const report = await freshnessCheck({}, { awsRequestId: 'req-m-2' } as Context);

    const perSource = withDimension('data_source_id');
    expect(perSource.map((l) => l.data_source_id).sort()).toEqual(local.simulator.dataSourceIds().sort());
    const endOfTo = Date.parse(`${TO}T00:00:00Z`) + 24 * HOUR_MS;
    for (const line of perSource) {
      expect(line._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service', 'data_source_id']]);
      expect(line.NewestBilledDayAgeHours as number).toBeCloseTo((Date.now() - endOfTo) / HOUR_MS, 0);
      expect(typeof line.LastSyncAgeHours).toBe('number');
    }
    const [worst] = emf().filter((l) => l._aws.CloudWatchMetrics[0]!.Dimensions[0]!.join() === 'service');
    expect(worst).toMatchObject({
      StalestBilledDayAgeHours: Math.max(...report.dataSources.map((d) => d.billedDayAgeHours!)),
      StalestSyncAgeHours: Math.max(...report.dataSources.map((d) => d.syncAgeHours!)),
    });
  });

  it('names every data source older than the setting in a warning line', async () => {
    out.length = 0;

    await freshnessCheck({}, { awsRequestId: 'req-m-3' } as Context);

    const warnings = out
      .flatMap((chunk) => chunk.split('\n'))
      .filter((l) => l.includes('"data source stale"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    // The simulator's data ends in September; the clock says later, so both are stale.
    expect(warnings.map((w) => w.dataSourceId).sort()).toEqual(local.simulator.dataSourceIds().sort());
    expect(String(warnings[0]!.why)).toMatch(`no billed day newer than ${TO} exported`);
    expect(warnings[0]).toMatchObject({ level: 'warn', staleAfterHours: 48 });
  });

  it('never prints the token in a metric, a dimension or a log line', () => {
    expect(everything.filter((l) => l.includes('"_aws"')).length).toBeGreaterThan(3);
    expectNoSecret(everything, local.token);
  });
});
