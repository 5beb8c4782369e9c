// Derived tables follow their source outside the run's window: a confirmed month that a sync
// restates months later is re-exported by the default run (the job history), its unified costs
// with it, and the scheduled statements run ({}) archives a revision for it, though the month is
// older than the three it looks at by default.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../../functions/lib/dates.ts';
import { parseStatementsEvent, runMonthlyStatements } from '../../../functions/lib/statements/monthly.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import type { Simulator } from '../../../harness/simulator/index.ts';
import { type CliWorld, cliWorld } from '../../support/cli-world.ts';
import { monthBack, monthEnd } from '../../support/months.ts';

const MONTH = monthBack(5);
const FROM = `${MONTH}-01`;
const TO = monthEnd(5);

let world: CliWorld;
let sim: Simulator;
let dir: string;

beforeAll(async () => {
  world = await cliWorld('derived-follow', {
    seed: 97,
    dataSources: 2,
    workspaces: 2,
    from: FROM,
    to: TO,
    rowsPerDay: 10,
  });
  ({ sim, dir } = world);
});
afterAll(() => world.close());

const costs = (out: string, ...extra: string[]) => world.cli('costs', out, '--json', ...extra);

describe('a confirmed month restated outside the window', () => {
  it('reaches its unified costs and a new statement version through the default runs', async () => {
    const out = join(dir, 'out');
    const sink = dirSink(out);
    expect((await costs(out, '--from', FROM, '--to', TO)).code).toBe(0);
    expect((await costs(out)).code).toBe(0); // the default run leaves its job-history marks
    const now = new Date();
    const first = await runMonthlyStatements({ sink, now }, { months: [MONTH], currency: 'USD' });
    expect(first.archived).toBeGreaterThan(0);
    const [ds] = sim.dataSourceIds() as [string];
    sim.sync(ds, { start: MONTH, changes: { [addDays(FROM, 4)]: { costFactor: 3 } } });

    const rerun = await costs(out);
    const scheduled = await runMonthlyStatements({ sink, now }, parseStatementsEvent({}, now));

    expect(rerun.code).toBe(0);
    expect(rerun.summary.reexamined).toEqual(
      expect.arrayContaining([{ dataSourceId: ds, months: expect.arrayContaining([MONTH]) }]),
    );
    expect(rerun.summary.unifiedCosts.months.map((m: { month: string }) => m.month)).toContain(MONTH);
    expect(scheduled.months.map((m) => m.month)).toContain(MONTH);
    expect(scheduled.revised).toBeGreaterThan(0);
  });
});
