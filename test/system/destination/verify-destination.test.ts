// The one verifier (destination/verify-destination.ts) behind `costs --verify`: it walks the whole
// destination, a directory or S3, every table, repairs through the run what Cloudforet still has
// (cost days, FOCUS units) and names what it cannot (an archived statement file changed), and it
// prints what it checked on both kinds of destination.
import { appendFile, readdir, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costObjectKey } from '../../../functions/lib/costs/sources/day-keys.ts';
import { verifyDestination } from '../../../functions/lib/destination/verify-destination.ts';
import { focusObjectKey } from '../../../functions/lib/focus/derive.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { type S3Server, startS3 } from '../../../harness/s3-server.ts';
import type { Simulator } from '../../../harness/simulator/index.ts';
import { type CliWorld, cliWorld } from '../../support/cli-world.ts';
import { monthBack } from '../../support/months.ts';

const MONTH_2 = monthBack(2);
const FROM = `${MONTH_2}-01`;
const TO = `${MONTH_2}-03`;
const DAY = `${MONTH_2}-02`;
/** A window holding none of the days above: --verify still walks them. */
const LATER = ['--date', `${monthBack(1)}-01`];

let world: CliWorld;
let sim: Simulator;
let s3: S3Server;
let dir: string;

beforeAll(async () => {
  world = await cliWorld('verify', {
    seed: 83,
    dataSources: 2,
    from: FROM,
    to: `${monthBack(1)}-01`,
    rowsPerDay: 20,
  });
  ({ sim, dir } = world);
  s3 = await startS3({ buckets: ['verify-bucket'] });
});
afterAll(async () => {
  await Promise.all([world.close(), s3.stop()]);
});

const costs = (out: string, ...extra: string[]) => world.cli('costs', out, ...extra);

async function onS3<T>(run: () => Promise<T>): Promise<T> {
  const saved = { ...process.env };
  Object.assign(process.env, {
    ...s3.env,
  });
  return run().finally(() => {
    process.env = saved;
  });
}

describe('costs --verify walks the whole destination', () => {
  it('a directory: repairs a damaged cost day and FOCUS unit outside the window, and says what it checked', async () => {
    const out = join(dir, 'dir');
    expect((await costs(out, '--from', FROM, '--to', TO)).code).toBe(0);
    const [a, b] = sim.dataSourceIds() as [string, string];
    await appendFile(join(out, costObjectKey(a, DAY)), 'x');
    await truncate(join(out, focusObjectKey(b, DAY)), 100);

    const run = await costs(out, ...LATER, '--verify');
    const again = await verifyDestination(dirSink(out), { checksums: true });

    expect(run.code).toBe(0);
    expect(run.out).toMatch(/, 1 repaired \(object missing or damaged\)/);
    expect(run.out).toMatch(/focus \(FOCUS 1\.3\): .*1 repaired/);
    expect(run.out).toMatch(
      /verified .*: \d+ manifests, \d+ objects \(\d+ by SHA-256\), \d+ derived units .*: all as recorded/,
    );
    expect(again.findings).toEqual([]);
    expect(again.objects).toBeGreaterThanOrEqual(12);
    expect(again.derived).toBeGreaterThanOrEqual(6);
  });

  it('a directory: an object no manifest names, and one changed past repair, are named and fail the run', async () => {
    const out = join(dir, 'dir');
    const folder = join(out, 'costs', `billed_date=${DAY}`);
    const [name] = await readdir(folder);
    await appendFile(join(folder, 'stray.parquet'), 'PAR1');
    const unified = join(out, 'unified_costs');
    const [month] = await readdir(unified);
    const [file] = await readdir(join(unified, month!));
    await appendFile(join(unified, month!, file!), 'x');

    const run = await costs(out, ...LATER, '--verify');

    expect(name).toBeDefined();
    expect(run.code).toBe(1);
    expect(run.out).toContain(`DAMAGED costs/billed_date=${DAY}/stray.parquet: no-manifest`);
    expect(run.out).toMatch(/DAMAGED unified_costs\/.*: size/);
  });

  it('S3: the same walk, printed, and a replaced FOCUS object repaired', async () => {
    const out = 's3://verify-bucket/v';
    expect((await onS3(() => costs(out, '--from', FROM, '--to', TO))).code).toBe(0);
    const [a] = sim.dataSourceIds() as [string];
    const key = `v/${focusObjectKey(a, DAY)}`;
    const body = await (
      await s3.client.send(new GetObjectCommand({ Bucket: 'verify-bucket', Key: key }))
    ).Body!.transformToByteArray();
    const damaged = Uint8Array.from(body);
    const middle = Math.floor(damaged.length / 2);
    damaged[middle] = (damaged[middle] ?? 0) ^ 0xff; // same size, same second perhaps: only a checksum tells
    await s3.client.send(new PutObjectCommand({ Bucket: 'verify-bucket', Key: key, Body: damaged }));

    const run = await onS3(() => costs(out, ...LATER, '--verify'));

    expect(run.code).toBe(0);
    expect(run.out).toMatch(/focus \(FOCUS 1\.3\): .*1 repaired/);
    expect(run.out).toMatch(
      /verified s3:\/\/verify-bucket\/v: \d+ manifests, \d+ objects \(\d+ by SHA-256\).*all as recorded/,
    );
  });
});
