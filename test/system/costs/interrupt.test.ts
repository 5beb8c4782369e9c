// A local run stopped mid-write by SIGINT, SIGTERM or SIGKILL: nothing temporary stays inside the
// table, a glob read of the table succeeds, and after a rerun no temporary file remains anywhere.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { queryDuckDB } from '../../../harness/parquet-readers.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { appFolder } from '../../../harness/tokens.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { monthBack } from '../../support/months.ts';
import { snapshotDir, tempFiles } from '../../support/unit-invariants.ts';

const MONTH_1 = monthBack(1);

const FROM = `${MONTH_1}-10`;
const TO = `${MONTH_1}-11`;
const BIN = fileURLToPath(new URL('../../../bin/cloudforet-export.mjs', import.meta.url));
// Days of exactly 36,000 rows, whatever the date (drawn counts fell below 27,000 with the clock two
// years ahead): a day's object is opened once its first row group (25,000 rows) is full, so a
// listing held from page 27 on keeps that object mid-write for as long as needed.
const ROWS_PER_DAY = 36_000;
const PAGES_BEFORE_HOLD = 26;

describe('interrupted local runs', () => {
  let sim: Simulator;
  let dir: string;
  let secretFile: string;
  const args = (out: string) => [
    'costs',
    ...['--endpoint', sim.url, '--secret-file', secretFile, '--out', out],
    ...['--from', FROM, '--to', TO, '--force', '--concurrency', '1'],
  ];
  const truthRows = () =>
    sim
      .dataSourceIds()
      .reduce((n, ds) => n + [FROM, TO].reduce((m, d) => m + sim.costTruth(ds, d).rows, 0), 0);
  const globRows = async (out: string) =>
    Number(
      (
        await queryDuckDB(
          `SELECT count(*) AS n FROM read_parquet('${out}/costs/*/*', hive_partitioning = true)`,
        )
      ).rows[0]!.n,
    );

  beforeAll(async () => {
    sim = await startSimulator({
      seed: 43,
      dataSources: 1,
      from: FROM,
      to: TO,
      rowsPerDay: ROWS_PER_DAY,
      exactRowsPerDay: true,
    });
    ({ dir, secretFile } = await appFolder('interrupt', sim.issueToken()));
    const smallest = Math.min(...[FROM, TO].map((d) => sim.costTruth(sim.dataSourceIds()[0]!, d).rows));
    expect(smallest).toBeGreaterThan((PAGES_BEFORE_HOLD + 1) * 1000);
  });
  afterAll(async () => {
    sim.clearFaults();
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  /**
   * A first run done, then the CLI in a child whose listing is held after PAGES_BEFORE_HOLD pages:
   * `signal` is sent once the held day's object is being written.
   */
  async function stopMidWrite(out: string, signal: NodeJS.Signals) {
    expect(await main(args(out), {}, fakeIo())).toBe(0);
    sim.resetRequestLog();
    sim.injectFault({
      path: LIST,
      kind: 'slow',
      delayMs: 600_000,
      afterRequests: PAGES_BEFORE_HOLD,
      times: Number.POSITIVE_INFINITY,
    });
    const child = spawn(process.execPath, [BIN, ...args(out)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = collect(child);
    const exited = new Promise<[number | null, string | null]>((resolve) =>
      child.once('exit', (code, sig) => resolve([code, sig])),
    );
    const pending = async () =>
      (await readdir(join(out, '_tmp')).catch(() => [])).some((f) => f.includes('.parquet.'));
    try {
      await waitFor(pending);
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
    const listed = sim.requests.filter((r) => r.path === LIST).length;
    const sent = performance.now();
    child.kill(signal);
    const [code, killedBy] = await exited;
    const seconds = (performance.now() - sent) / 1000;
    sim.clearFaults();
    return {
      code,
      killedBy,
      seconds,
      listed,
      stdout: output.stdout(),
      left: tempFiles(await snapshotDir(out)),
    };
  }

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s stops the run with exit %i, a partial summary and no temporary file',
    async (signal, exit) => {
      const out = join(dir, signal);

      const stopped = await stopMidWrite(out, signal);

      expect(stopped.listed).toBe(PAGES_BEFORE_HOLD);
      expect(stopped.code).toBe(exit);
      expect(stopped.seconds).toBeLessThan(2);
      expect(stopped.stdout).toContain('INTERRUPTED: 1 units not started');
      expect(stopped.stdout).toContain('1 failed, 1 not started');
      expect(stopped.stdout).toContain(`stopped before it finished (interrupted by ${signal})`);
      expect(stopped.stdout).toContain('[UNIT_INTERRUPTED]');
      // The steps after the units say they were left, and no step prints an empty figure.
      expect(stopped.stdout).toContain(
        `LEFT for the next run: unified, focus, compaction: the run was stopped (interrupted by ${signal})`,
      );
      expect(stopped.stdout).not.toContain('unified costs ()');
      expect(stopped.left).toEqual([]);
      expect(await globRows(out)).toBe(truthRows());
    },
  );

  it('SIGKILL leaves its temporary file outside the table, and the next run removes it', async () => {
    const out = join(dir, 'SIGKILL');

    const stopped = await stopMidWrite(out, 'SIGKILL');
    const readMidway = await globRows(out);
    const rerun = await main(args(out), {}, fakeIo());

    expect(stopped.killedBy).toBe('SIGKILL');
    expect(stopped.left.length).toBeGreaterThan(0);
    expect(stopped.left.every((f) => f.startsWith('_tmp/.'))).toBe(true);
    expect(readMidway).toBe(truthRows());
    expect(rerun).toBe(0);
    expect(tempFiles(await snapshotDir(out))).toEqual([]);
    expect(await globRows(out)).toBe(truthRows());
  });
});

const LIST = '/cost-analysis/cost/list';

function collect(child: ChildProcess): { stdout: () => string } {
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.resume();
  return { stdout: () => out };
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
