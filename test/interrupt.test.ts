// A local run stopped mid-write by SIGINT, SIGTERM or SIGKILL: nothing temporary stays inside the
// table, a glob read of the table succeeds, and after a rerun no temporary file remains anywhere.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../cli/main.ts';
import { type Simulator, startSimulator } from '../tools/simulator/index.ts';
import { fakeIo } from './support/fake-io.ts';
import { queryDuckDB } from './support/parquet-readers.ts';
import { snapshotDir, tempFiles } from './support/unit-invariants.ts';
import { consoleAppJson } from './support/tokens.ts';

const FROM = '2026-10-10';
const TO = '2026-10-12';
const BIN = fileURLToPath(new URL('../bin/cloudforet-export.mjs', import.meta.url));

describe('interrupted local runs', () => {
  let sim: Simulator;
  let dir: string;
  let secretFile: string;
  const args = (out: string) => [
    'costs',
    ...['--endpoint', sim.url, '--secret-file', secretFile, '--out', out],
    ...['--from', FROM, '--to', TO, '--force', '--concurrency', '2'],
  ];
  const globRows = async (out: string) =>
    Number(
      (
        await queryDuckDB(
          `SELECT count(*) AS n FROM read_parquet('${out}/costs/*/*', hive_partitioning = true)`,
        )
      ).rows[0]!.n,
    );

  beforeAll(async () => {
    sim = await startSimulator({ seed: 43, dataSources: 2, from: FROM, to: TO, rowsPerDay: 2500 });
    dir = await mkdtemp(join(tmpdir(), 'interrupt-'));
    secretFile = join(dir, 'app.json');
    await writeFile(secretFile, consoleAppJson(sim.issueToken()));
  });
  afterAll(async () => {
    sim.setLatency(0);
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Runs the CLI in a child, a first run done, and sends `signal` once a unit is mid-write. */
  async function stopMidWrite(out: string, signal: NodeJS.Signals) {
    expect(await main(args(out), {}, fakeIo())).toBe(0);
    sim.setLatency(300);
    const child = spawn(process.execPath, [BIN, ...args(out)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = collect(child);
    const exited = new Promise<[number | null, string | null]>((resolve) =>
      child.once('exit', (code, sig) => resolve([code, sig])),
    );
    // A Parquet object being written (a manifest's temporary file lives only for a moment).
    const pending = async () =>
      (await readdir(join(out, '_tmp')).catch(() => [])).some((f) => f.includes('.parquet.'));
    await waitFor(pending);
    child.kill(signal);
    const [code, killedBy] = await exited;
    sim.setLatency(0);
    return { code, killedBy, stdout: output.stdout(), left: tempFiles(await snapshotDir(out)) };
  }

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s stops the run with exit %i, a partial summary and no temporary file',
    async (signal, exit) => {
      const out = join(dir, signal);

      const stopped = await stopMidWrite(out, signal);

      expect(stopped.code).toBe(exit);
      expect(stopped.stdout).toContain('INTERRUPTED');
      expect(stopped.left).toEqual([]);
      expect(await globRows(out)).toBeGreaterThan(0);
    },
  );

  it('SIGKILL leaves its temporary file outside the table, and the next run removes it', async () => {
    const out = join(dir, 'SIGKILL');
    // A small day's object is written whole when its unit ends, so the kill can land just after
    // the rename on a loaded machine: arrange again (at most 3 times) until it lands mid-write.
    let stopped = await stopMidWrite(out, 'SIGKILL');
    for (let tries = 1; tries < 3 && stopped.left.length === 0; tries++) {
      stopped = await stopMidWrite(out, 'SIGKILL');
    }
    const readMidway = await globRows(out);
    const rerun = await main(args(out), {}, fakeIo());

    expect(stopped.killedBy).toBe('SIGKILL');
    expect(stopped.left.length).toBeGreaterThan(0);
    expect(stopped.left.every((f) => f.startsWith('_tmp/.'))).toBe(true);
    expect(readMidway).toBeGreaterThan(0);
    expect(rerun).toBe(0);
    expect(tempFiles(await snapshotDir(out))).toEqual([]);
    expect(await globRows(out)).toBe(
      sim
        .dataSourceIds()
        .reduce(
          (n, ds) => n + [FROM, '2026-10-11', TO].reduce((m, d) => m + sim.costTruth(ds, d).rows, 0),
          0,
        ),
    );
  });
});

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
