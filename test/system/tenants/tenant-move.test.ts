// Issue 47, part 7: a single-domain destination moves into a tenant's folder with one command that
// loses nothing. One simulated domain exported over three months (FOCUS, two compacted months),
// into a directory and into S3; `move-into-tenant` copies it under tenants/acme/; every object's
// SHA-256, read back, is the source's (the manifests of objects S3 stored in parts excepted, which
// name their copy's new ETag and nothing else new); the tenant's next run exports nothing and its
// `--verify` finds nothing damaged. A plain copy (what `aws s3 cp` does) is shown to fail that.
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { type S3Server, startS3 } from '../../../harness/s3-server.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { appFolder } from '../../../harness/tokens.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { monthBack, monthsBack } from '../../support/months.ts';
import {
  checksums,
  copyPlainly,
  dirStore,
  markUploadedInParts,
  rewrittenByEveryRun,
  type Store,
  s3Store,
  unchanged,
} from '../../support/tenant-move.ts';

/** Two compacted months and this one: the tenant's default window (this month and the last) is all exported. */
const FROM = monthsBack(2);
const TO = addDays(utcDay(new Date()), -1);

let sim: Simulator;
let s3: S3Server;
let dir: string;
let secretFile: string;
const saved = { ...process.env };

beforeAll(async () => {
  sim = await startSimulator({ seed: 71, dataSources: 2, workspaces: 2, from: FROM, to: TO, rowsPerDay: 2 });
  // Cost reports archived (their versions, statuses) beside the costs: the move keeps them too.
  sim.runCostReportJob(monthBack(2), 'DONE');
  ({ dir, secretFile } = await appFolder('tenant-move', sim.issueToken()));
  s3 = await startS3({ buckets: ['lake'] });
  Object.assign(process.env, {
    ...s3.env,
  });
}, 60_000);
afterAll(async () => {
  process.env = saved;
  await Promise.all([sim.close(), s3.stop()]);
  await rm(dir, { recursive: true, force: true });
});

async function cli(...argv: string[]) {
  const io = fakeIo();
  const code = await main(argv, {}, io);
  return { code, out: io.out(), err: io.err() };
}

const costs = (out: string, ...extra: string[]) =>
  cli(
    'costs',
    '--endpoint',
    sim.url,
    '--secret-file',
    secretFile,
    '--out',
    out,
    '--json',
    '--cost-reports',
    ...extra,
  );

/** Exports the domain alone into `out`, as a stack without tenants does. */
async function exportSingleDomain(out: string): Promise<void> {
  const run = await costs(out, '--from', FROM, '--to', TO);
  expect(run.code, run.err).toBe(0);
  const summary = JSON.parse(run.out);
  expect(summary.failed).toBe(0);
  const through = summary.compaction.tables.map((t: { throughMonth?: string }) => t.throughMonth);
  expect(through.length).toBeGreaterThan(0);
  expect(through.every((m: string | undefined) => m !== undefined && m >= FROM.slice(0, 7))).toBe(true);
}

/** The tenant's next run and its --verify: nothing exported again, nothing damaged. */
async function expectTenantUnchanged(store: Store, out: string, tenant: string): Promise<void> {
  const before = await checksums(store, `tenants/${tenant}/`);

  const run = await costs(out, '--tenant', tenant);
  const verify = await costs(out, '--tenant', tenant, '--verify');

  for (const { code, out: text, err } of [run, verify]) {
    expect(code, err).toBe(0);
    const summary = JSON.parse(text);
    expect(summary).toMatchObject({ written: 0, removed: 0, repaired: 0, failed: 0, rows: 0 });
    expect(summary.unchanged).toBeGreaterThan(100);
    expect(summary.focus).toMatchObject({ written: 0, removed: 0, repaired: 0, failures: [] });
    for (const table of summary.compaction.tables) expect(table).toMatchObject({ written: 0, removed: 0 });
  }
  expect(JSON.parse(verify.out).verify).toMatchObject({ findings: [] });
  const after = await checksums(store, `tenants/${tenant}/`);
  expect(unchanged(before, after)).toEqual([]);
  // Only today is new: a day the single-domain export never reached (it has no costs yet).
  const today = utcDay(new Date());
  const added = [...after.keys()].filter((k) => !before.has(k) && !rewrittenByEveryRun(k));
  expect(added.filter((k) => !k.includes(`billed_date=${today}/`))).toEqual([]);
}

describe('move-into-tenant', () => {
  it('moves a directory byte for byte, and the tenant exports nothing again', async () => {
    const out = join(dir, 'single');
    await exportSingleDomain(out);
    const statements = await cli('statements', '--month', monthBack(1), '--out', out);
    expect(statements.code, statements.err).toBe(0);
    const store = dirStore(out);
    const source = await checksums(store, '');
    const folders = new Set([...source.keys()].map((k) => k.split('/')[0]));

    const move = await cli('move-into-tenant', '--out', out, '--tenant', 'acme', '--force', '--json');

    for (const kept of [
      'costs',
      'focus',
      'costs_monthly',
      'cost_reports',
      'cost_report_status',
      'statements',
    ])
      expect(folders).toContain(kept);
    for (const kept of ['_manifests', 'ledger', 'compaction_state', '_destination.json'])
      expect(folders).toContain(kept);
    expect(move.code, move.err).toBe(0);
    const report = JSON.parse(move.out);
    expect(report).toMatchObject({ outcome: 'moved', rewritten: 0, resumed: 0, deleted: 0, kept: [] });
    expect(report.objects).toBe(source.size);
    expect(report.identical).toBe(source.size);
    const moved = await checksums(store, 'tenants/acme/');
    expect(moved.delete('_moved-in.json')).toBe(true);
    expect(moved).toEqual(source);
    expect(move.err).toContain('move-into-tenant: writing to');
    expect(move.err).toMatch(/move-into-tenant: \d+\/\d+ objects, [\d.]+ MB/);
    await expectTenantUnchanged(store, out, 'acme');
    const removal = await cli(
      'move-into-tenant',
      '--out',
      out,
      '--tenant',
      'acme',
      '--delete-source',
      '--json',
    );
    expect(JSON.parse(removal.out)).toMatchObject({
      outcome: 'already moved',
      deleted: source.size,
      kept: [],
    });
    expect((await readdir(out)).filter((f) => f !== '_tmp')).toEqual(['tenants']);
  }, 240_000);

  it('moves S3 objects stored in parts, rewriting only their manifests, where a plain copy exports again', async () => {
    const out = 's3://lake/single';
    await exportSingleDomain(out);
    const store = s3Store(s3, 'lake', 'single');
    const parted = await markUploadedInParts(s3, store, 'lake', 'single', [TO, `${FROM.slice(0, 7)}-10`]);
    const source = await checksums(store, '');

    let move = await cli('move-into-tenant', '--out', out, '--tenant', 'acme', '--force', '--json');
    // s3rver is no S3: on a loaded machine a copy has once read back other bytes (an SDK retry of a
    // slow write racing the first, in s3rver's files). The move then stops, keeping the source, and
    // says to run it again: what a user would do, once.
    if (move.code !== 0 && move.err.includes('[MOVE_COPY_MISMATCH]'))
      move = await cli('move-into-tenant', '--out', out, '--tenant', 'acme', '--force', '--json');
    await copyPlainly(store, 'tenants/plain/');
    const plain = await costs(out, '--tenant', 'plain');

    expect(move.code, move.err).toBe(0);
    const report = JSON.parse(move.out);
    const moved = await checksums(store, 'tenants/acme/');
    expect(moved.delete('_moved-in.json')).toBe(true);
    const differ = [...source.keys()].filter((k) => moved.get(k) !== source.get(k)).sort();
    expect(differ).toEqual(parted.rewritten);
    expect(report).toMatchObject({ objects: source.size, rewritten: differ.length });
    expect(report.identical).toBe(source.size - differ.length);
    for (const key of differ) {
      const [was, now] = [await store.read(key), await store.read(`tenants/acme/${key}`)];
      expect(Object.keys(diffFields(was!, now!))).toEqual(parted.fields(key));
    }
    expect(JSON.parse(plain.out).units).toBeGreaterThan(0);
    await expectTenantUnchanged(store, out, 'acme');
  }, 300_000);
});

/** The top-level fields (and compacted sources) whose values differ between two manifests. */
function diffFields(a: string, b: string): Record<string, true> {
  const [x, y] = [JSON.parse(a), JSON.parse(b)] as Record<string, unknown>[];
  const keys = new Set([...Object.keys(x!), ...Object.keys(y!)]);
  return Object.fromEntries(
    [...keys].filter((k) => JSON.stringify(x![k]) !== JSON.stringify(y![k])).map((k) => [k, true]),
  );
}
