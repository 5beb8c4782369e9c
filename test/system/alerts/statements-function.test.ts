// The statements function end to end: simulator exports through the cost function into s3rver, the
// statements function archiving a month once Cloudforet confirms it, and a revision beside the
// original when a confirmed month is restated. The clock (Date only) is set to days around the
// month's confirmation (day 15 of the next month, as in Cloudforet), the simulator's too.
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../../cli/main.ts';
import { handler as costExport } from '../../../functions/cost-export.ts';
import { addDays } from '../../../functions/lib/dates.ts';
import { handler as statements } from '../../../functions/statements.ts';
import { BUCKET, type LocalAws, PREFIX, startLocalAws } from '../../../harness/local-aws.ts';
import { getObjectBytes, listKeys } from '../../../harness/s3-server.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { monthBack, monthEnd } from '../../support/months.ts';

const MONTH = monthBack(2);
const FROM = `${MONTH}-01`;
const TO = monthEnd(2);
const NEXT = monthBack(1);
const context = (id: string) => ({ awsRequestId: id, functionName: 'statements' }) as Context;
const folder = `${PREFIX}/statements/billed_month=${MONTH}/`;

let local: LocalAws;
let restoreEnv: () => void;

const keys = async () =>
  (await listKeys(local.s3.client, BUCKET, folder)).map((k) => k.slice(folder.length)).sort();
const text = async (file: string) =>
  new TextDecoder().decode(await getObjectBytes(local.s3.client, BUCKET, `${folder}${file}`));
/** The sum of the CSV's cost column, counted from the end (names may hold quoted commas). */
const csvTotal = (csv: string) => {
  const [header, ...lines] = csv.split('\r\n').filter(Boolean);
  const names = (header ?? '').split(',');
  const fromEnd = names.indexOf('cost') - names.length;
  return lines.reduce((n, l) => n + Number(l.split(',').at(fromEnd)), 0);
};

/** workspace -> the month's unified-cost total in USD, as the simulator lists it now. */
function truth(): Map<string, number> {
  const totals = new Map<string, number>();
  for (const r of local.simulator.unifiedCostRecords()) {
    if (r.billed_month !== MONTH) continue;
    const ws = typeof r.workspace_id === 'string' && r.workspace_id ? r.workspace_id : 'unassigned';
    totals.set(ws, (totals.get(ws) ?? 0) + Number((r.cost as Record<string, number>).USD ?? 0));
  }
  return totals;
}

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date(`${NEXT}-10T12:00:00Z`));
  local = await startLocalAws({
    seed: 37,
    dataSources: 2,
    workspaces: 2,
    from: FROM,
    to: TO,
    rowsPerDay: 20,
  });
  restoreEnv = local.applyEnv();
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
}, 60_000);
afterAll(async () => {
  vi.restoreAllMocks();
  vi.useRealTimers();
  restoreEnv();
  await local.stop();
});

describe('statements function', () => {
  it('writes nothing for a month Cloudforet has not confirmed', async () => {
    expect((await costExport({ from: FROM, to: TO }, context('cost-1'))).failed).toBe(0);

    const result = await statements({ month: MONTH }, context('st-1'));

    expect(result.months).toEqual([{ month: MONTH, status: 'not confirmed', statements: [] }]);
    expect(await keys()).toEqual([]);
  });

  it('archives each workspace statement once the month is confirmed, adding up to the unified costs', async () => {
    vi.setSystemTime(new Date(`${NEXT}-20T12:00:00Z`));
    expect((await costExport({ from: FROM, to: TO }, context('cost-2'))).failed).toBe(0);

    const result = await statements({ month: MONTH }, context('st-2'));

    const workspaces = [...truth().keys()].sort();
    expect(workspaces.length).toBeGreaterThan(1);
    expect(result).toMatchObject({ archived: workspaces.length, revised: 0 });
    expect(await keys()).toEqual(workspaces.flatMap((ws) => [`${ws}.r1.csv`, `${ws}.r1.html`]).sort());
    for (const [ws, total] of truth())
      expect(Math.abs(csvTotal(await text(`${ws}.r1.csv`)) - total)).toBeLessThan(0.01);
    expect(await text(`${workspaces[0]}.r1.html`)).toContain('confirmed by Cloudforet');
  });

  it('writes nothing new when the month is unchanged', async () => {
    const before = await keys();

    const result = await statements({ month: MONTH }, context('st-3'));

    expect(result).toMatchObject({ archived: 0, revised: 0, unchanged: before.length / 2 });
    expect(await keys()).toEqual(before);
  });

  it('keeps the original byte for byte and writes a revision with a note when the month is restated', async () => {
    const ds = local.simulator.dataSourceIds()[0]!;
    const day = addDays(FROM, 9);
    const originals = new Map<string, Uint8Array>();
    for (const file of await keys())
      originals.set(file, await getObjectBytes(local.s3.client, BUCKET, `${folder}${file}`));
    const totalsBefore = truth();
    local.simulator.resync(ds, day, { costFactor: 3 });
    expect((await costExport({ date: day }, context('cost-3'))).written).toBe(1);

    const result = await statements({ month: MONTH }, context('st-4'));

    const changed = [...truth()]
      .filter(([ws, t]) => Math.abs(t - totalsBefore.get(ws)!) >= 0.005)
      .map(([ws]) => ws);
    expect(changed.length).toBeGreaterThan(0);
    expect(result).toMatchObject({ revised: changed.length, archived: 0 });
    for (const [file, bytes] of originals) {
      expect(await getObjectBytes(local.s3.client, BUCKET, `${folder}${file}`), file).toEqual(bytes);
    }
    for (const ws of changed) {
      const revised = await text(`${ws}.r2.csv`);
      expect(Math.abs(csvTotal(revised) - truth().get(ws)!)).toBeLessThan(0.01);
      const note = await text(`${ws}.r2.txt`);
      expect(note).toContain(`Statement ${ws} for ${MONTH}, revision 2`);
      expect(note).toContain(
        `Total: ${totalsBefore.get(ws)!.toFixed(2)} -> ${truth().get(ws)!.toFixed(2)} USD`,
      );
      expect(note).toContain(`(${ws}.r1.csv), which is kept unchanged`);
    }
    expect((await keys()).filter((k) => k.includes('.r2.'))).toHaveLength(changed.length * 3);
  });

  it('lets the CLI read the same S3 destination, where it rewrites nothing archived', async () => {
    const before = await keys();
    const io = fakeIo();

    const code = await main(
      ['statements', '--month', MONTH, '--out', `s3://${BUCKET}/${PREFIX}`, '--json'],
      {},
      io,
    );

    expect(code).toBe(0);
    const summary = JSON.parse(io.out()) as { statements: Array<{ outcome: string }> };
    expect(summary.statements.map((s) => s.outcome)).toEqual(summary.statements.map(() => 'unchanged'));
    expect(await keys()).toEqual(before);
  });

  it('refuses, exit 2, statements of an archived month in another currency', async () => {
    const before = await keys();
    const io = fakeIo();

    const code = await main(
      ['statements', '--month', MONTH, '--out', `s3://${BUCKET}/${PREFIX}`, '--currency', 'KRW'],
      {},
      io,
    );

    expect(code).toBe(2);
    expect(io.err()).toContain(`the statements of ${MONTH} are archived in USD: give --currency USD`);
    expect(await keys()).toEqual(before);
  });
});
