// `cloudforet-export costs` against the simulator, into a directory and into s3rver.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { addDays, daysBetween } from '../../../functions/lib/dates.ts';
import { queryDuckDB } from '../../../harness/parquet-readers.ts';
import { listKeys, type S3Server, startS3 } from '../../../harness/s3-server.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { appFolder } from '../../../harness/tokens.ts';
import { fakeIo } from '../../support/fake-io.ts';

import { monthsBack } from '../../support/months.ts';

const FROM = monthsBack(5);
const TO = addDays(FROM, 59);

describe('cloudforet-export costs', () => {
  let sim: Simulator;
  let s3: S3Server;
  let dir: string;
  let secretFile: string;
  const args = (out: string, ...more: string[]) => [
    'costs',
    '--endpoint',
    sim.url,
    '--secret-file',
    secretFile,
    '--out',
    out,
    ...more,
  ];

  beforeAll(async () => {
    sim = await startSimulator({ seed: 31, dataSources: 3, from: FROM, to: TO, rowsPerDay: 20 });
    s3 = await startS3({ buckets: ['cli-bucket'] });
    ({ dir, secretFile } = await appFolder('cli-costs', sim.issueToken()));
  });
  afterAll(async () => {
    await Promise.all([sim.close(), s3.stop()]);
    await rm(dir, { recursive: true, force: true });
  });

  it('backfills 60 days x 3 data sources at --concurrency 3, with progress, exactly', async () => {
    const io = fakeIo();
    const out = join(dir, 'backfill');

    const code = await main(args(out, '--from', FROM, '--to', TO, '--concurrency', '3', '--json'), {}, io);
    const summary = JSON.parse(io.out());
    const { rows } = await queryDuckDB(
      `SELECT data_source_id, billed_date::VARCHAR AS d, count(*) AS n FROM read_parquet('${out}/costs/*/*.parquet', hive_partitioning = true) GROUP BY ALL`,
    );

    expect(code).toBe(0);
    expect(summary).toMatchObject({ units: 180, failed: 0, scope: `domain ${sim.domainId}` });
    expect(io.err()).toMatch(/costs: 180\/180 units, [\d,]+ rows, [\d,]+ rows\/s/);
    // The work after the units has its own progress lines, in the order it is done.
    const phases = io.err().match(/^costs: 180\/180 units, [\d,]+ rows; now the .*$/gm);
    expect(phases?.map((l) => l.replace(/^.*; now the /, ''))).toEqual([
      'unified costs of the months',
      'FOCUS rows of the days',
      'compaction of confirmed months',
    ]);
    const truth = sim
      .dataSourceIds()
      .flatMap((ds) => daysBetween(FROM, TO).map((d) => sim.costTruth(ds, d).rows));
    expect(rows.reduce((n, r) => n + Number(r.n), 0)).toBe(truth.reduce((a, b) => a + b, 0));
    expect(summary.rows).toBe(truth.reduce((a, b) => a + b, 0));
  });

  it('a rerun of the backfill does no work', async () => {
    const out = join(dir, 'rerun');
    expect(await main(args(out, '--from', FROM, '--to', TO), {}, fakeIo())).toBe(0);
    const io = fakeIo();

    const code = await main(args(out, '--from', FROM, '--to', TO, '--json'), {}, io);

    expect(code).toBe(0);
    expect(JSON.parse(io.out())).toMatchObject({ units: 0, unchanged: 180, rows: 0 });
  });

  it('exports into s3rver through AWS_ENDPOINT_URL_S3', async () => {
    const io = fakeIo();
    const env = {
      ...s3.env,
    };
    const saved = { ...process.env };
    Object.assign(process.env, env);

    const code = await main(args('s3://cli-bucket/exports', '--date', TO), {}, io).finally(() => {
      process.env = saved;
    });
    const keys = await listKeys(s3.client, 'cli-bucket', 'exports/costs/');

    expect(code).toBe(0);
    expect(keys.sort()).toEqual(
      sim
        .dataSourceIds()
        .map((ds) => `exports/costs/billed_date=${TO}/${ds}.parquet`)
        .sort(),
    );
  });

  it('exits 1 and names the unit when a unit fails', async () => {
    const io = fakeIo();
    sim.injectFault({ path: '/cost-analysis/cost/list', kind: '401' });

    const code = await main(
      args(join(dir, 'fail'), '--date', FROM, '--data-source', sim.dataSourceIds()[0]!),
      {},
      io,
    );

    expect(code).toBe(1);
    expect(io.out()).toContain(`FAILED ${sim.dataSourceIds()[0]} ${FROM}`);
    expect(io.out()).toContain('ERROR_AUTHENTICATE_FAILURE');
  });

  it('exits 2 with the usage when the destination is missing', async () => {
    const io = fakeIo();

    const code = await main(['costs', '--endpoint', sim.url, '--secret-file', secretFile], {}, io);

    expect(code).toBe(2);
    expect(io.err()).toContain('missing --out (or EXPORT_DESTINATION)');
  });
});
