// npm run simulator and npm run invoke, as a newcomer runs them: each in its own process.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { fakeIo } from '../../support/fake-io.ts';

const ROOT = new URL('../../..', import.meta.url);
const YESTERDAY = addDays(utcDay(new Date()), -1);

async function tool(script: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', script, ...args],
      { cwd: ROOT, timeout: 60_000 },
    );
    return { code: 0, out: stdout, err: stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout, err: e.stderr };
  }
}

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'local-tools-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('npm run invoke', () => {
  it('runs the cost handler on an event file and prints its logs and response', async () => {
    const event = join(work, 'one-day.json');
    await writeFile(event, JSON.stringify({ date: YESTERDAY }));

    const { code, out, err } = await tool('tools/invoke.ts', ['cost-export', event]);

    expect(code).toBe(0);
    expect(err).toMatch(
      /^invoke: starting the simulator .* on loopback …\ninvoke: local services ready in \d+\.\d s; running cost-export …\n/,
    );
    expect(out).toMatch(/^Function Logs:\n/);
    const response = JSON.parse(out.slice(out.indexOf('Response:\n') + 10)) as Record<string, unknown>;
    expect(response).toMatchObject({ from: YESTERDAY, to: YESTERDAY, written: 3, failed: 0 });
  });

  it('prints the error as the console does, exit 1', async () => {
    const event = join(work, 'misspelt.json');
    await writeFile(event, JSON.stringify({ dates: YESTERDAY }));

    const { code, out } = await tool('tools/invoke.ts', ['cost-export', event]);

    expect(code).toBe(1);
    expect(out).toContain('"errorCode": "EVENT_UNKNOWN_KEYS"');
    expect(out).toContain('dates (did you mean date?)');
  });

  it('lists every function in --help', async () => {
    const functions = (await readdir(new URL('functions/', ROOT))).filter((f) => f.endsWith('.ts'));

    const help = await tool('tools/invoke.ts', ['--help']);

    const listed = /^Functions: (.*)$/m.exec(help.out)?.[1]?.split(', ');
    expect(listed).toEqual(functions.map((f) => f.slice(0, -3)).sort());
    expect(listed).toContain('focus-export');
  });

  it("runs the shipped one-data-source event's data source (the simulator's)", async () => {
    // As shipped: its day is "today-1", so it names a day the simulator holds at any clock.
    const { code, out, err } = await tool('tools/invoke.ts', [
      'cost-export',
      'events/costs-one-data-source.json',
    ]);

    expect(code).toBe(0);
    expect(err).not.toContain('the simulator has no data source');
    const response = JSON.parse(out.slice(out.indexOf('Response:\n') + 10)) as Record<string, unknown>;
    expect(response).toMatchObject({ dataSources: 1, written: 1, failed: 0 });
  });

  it('runs the cost state machine as the schedule starts it, its states chained as its definition chains them', async () => {
    // The shipped one-day event ({"date": "today-1"}): the day is resolved once, by Plan.
    const { code, out } = await tool('tools/invoke.ts', ['state-machine', 'events/costs-one-day.json']);

    expect(code).toBe(0);
    expect(out).toContain('States:\nPlan: ok\nFinish: ok\nSummary: ok\nExportUnits: 3 invocations, 0 failed');
    const summary = JSON.parse(out.slice(out.indexOf('Execution SUCCEEDED:\n') + 21)) as Record<
      string,
      unknown
    >;
    expect(summary).toMatchObject({ units: 3, written: 3, failed: 0, notStarted: 0 });
  });

  it('keeps the bucket between invokes with --keep: focus-export, statements and alerts read what cost-export wrote', async () => {
    const bucket = join(work, 'kept-bucket');
    const none = join(work, 'no-event.json');
    await writeFile(none, '{}');
    // The response is the JSON after 'Response:', up to its closing brace (alerts prints a line after it).
    const response = <T>(run: { out: string }) =>
      JSON.parse(run.out.slice(run.out.indexOf('Response:\n') + 10, run.out.lastIndexOf('\n}') + 2)) as T;

    // {}: this month and the previous one, so the previous month's unified costs (its statements) too.
    const costs = await tool('tools/invoke.ts', ['cost-export', none, '--keep', bucket]);
    const focus = await tool('tools/invoke.ts', ['focus-export', none, '--keep', bucket]);
    const statements = await tool('tools/invoke.ts', ['statements', none, '--keep', bucket]);
    const alerts = await tool('tools/invoke.ts', ['alerts', none, '--keep', bucket]);

    expect(costs.code).toBe(0);
    expect(costs.err).toContain(`invoke: the bucket stays in ${bucket} (--keep)`);
    const exported = response<{ units: number; written: number; failed: number }>(costs);
    expect(exported.written).toBeGreaterThan(28 * 3);
    expect(exported.failed).toBe(0);
    expect(focus.code).toBe(0);
    // Every day the cost run exported already has its FOCUS rows (the cost run derived them).
    expect(response<{ current: number; written: number }>(focus)).toMatchObject({
      current: exported.units,
      written: 0,
    });
    expect(statements.code).toBe(0);
    const archive = response<{
      archived: number;
      months: Array<{ status: string; statements: Array<{ outcome: string; total: number }> }>;
    }>(statements);
    const confirmed = archive.months.filter((m) => m.status === 'confirmed');
    expect(confirmed.length).toBeGreaterThan(0);
    expect(archive.archived).toBe(confirmed.flatMap((m) => m.statements).length);
    expect(archive.archived).toBeGreaterThan(0);
    expect(
      confirmed.flatMap((m) => m.statements).every((st) => st.outcome === 'archived' && st.total > 0),
    ).toBe(true);
    expect(alerts.code).toBe(0);
    const sent = response<{ sent: number; failed: number }>(alerts);
    expect(sent.sent).toBeGreaterThan(0);
    expect(sent.failed).toBe(0);
    expect(alerts.out).toMatch(
      new RegExp(`^SNS \\(loopback, arn:aws:sns:[^)]+\\): ${sent.sent} messages published$`, 'm'),
    );
  }, 240_000);

  it('stops its local services and ends 143 on SIGTERM while the function runs', async () => {
    const event = join(work, 'term.json');
    await writeFile(event, JSON.stringify({ from: addDays(YESTERDAY, -30), to: YESTERDAY }));
    const child = spawn(process.execPath, ['--import', 'tsx', 'tools/invoke.ts', 'cost-export', event], {
      cwd: ROOT,
    });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      if (err.includes('running cost-export') && child.signalCode === null && !child.killed)
        child.kill('SIGTERM');
    });

    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));

    expect(err).toContain('invoke: stopped by SIGTERM; stopping the local services');
    expect(code).toBe(143);
  }, 60_000);

  it('answers --help, and refuses an unknown function with exit 2', async () => {
    const help = await tool('tools/invoke.ts', ['--help']);
    const unknown = await tool('tools/invoke.ts', ['cost-exprot', 'events/costs-one-day.json']);

    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^Usage: npm run invoke -- FUNCTION EVENT\.json/);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(
      /^invoke: give a function \(alerts, backfill-finish, backfill-plan, .*cost-export.*, statements, tenants-lanes, tenants-summary\)/,
    );
  });
});

/** PATH without the folder of the node running the tests: the machine's own node comes first. */
function withoutThisNode(path: string): string {
  const mine = dirname(process.execPath);
  return path
    .split(delimiter)
    .filter((d) => d !== mine)
    .join(delimiter);
}

describe('npm run simulator', () => {
  let child: ChildProcess | undefined;
  let printed = '';
  afterAll(() => {
    child?.kill('SIGTERM');
  });

  // Its refusals (unknown option, busy port, bad seed, app file in a missing folder) are rows of
  // test/system/cli/bad-input-matrix.test.ts.
  it('answers --help', async () => {
    const { code, out } = await tool('tools/simulator-alone.ts', ['--help']);

    expect(code).toBe(0);
    expect(out).toMatch(/^Usage: npm run simulator -- \[options\][\s\S]*--secret-file PATH/);
  });

  it('serves on its own and writes an app file that check accepts', async () => {
    const secretFile = join(work, 'sim-app.json');
    child = spawn(
      process.execPath,
      ['--import', 'tsx', 'tools/simulator-alone.ts', '--port', '0', '--secret-file', secretFile],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) =>
      child!.stdout!.on('data', (chunk: Buffer) => {
        printed += chunk.toString();
        if (printed.includes('Ctrl-C stops it.')) resolve();
      }),
    );
    const endpoint = /^Cloudforet simulator at (\S+)/.exec(printed)![1]!;
    const io = fakeIo();

    const exit = await main(
      ['check', '--endpoint', endpoint, '--secret-file', secretFile, '--out', work],
      {},
      io,
    );

    expect(printed).toContain(`cost rows ${addDays(YESTERDAY, -61)}..${YESTERDAY}`);
    expect(printed).toContain(`npm run cli -- check --endpoint ${endpoint} --secret-file ${secretFile}`);
    expect(exit).toBe(0);
    expect(io.out()).toMatch(/endpoint ok: .* 3 cost data sources visible/);
  });

  it('prints a check command that passes as pasted, with the machine node first on PATH', async () => {
    const line = /^ {2}(npm run cli -- check .*)$/m.exec(printed)?.[1];
    expect(line).toBeDefined();
    // check makes ./export-out in the checkout (empty: its test object is removed); one it made goes.
    const made = new URL('export-out', ROOT);
    const existed = existsSync(made);

    const pasted = await promisify(execFile)('bash', ['-c', line!], {
      cwd: ROOT,
      env: { ...process.env, PATH: withoutThisNode(process.env.PATH ?? '') },
      timeout: 120_000,
    }).finally(() => (existed ? undefined : rmdir(made).catch(() => {})));

    expect(pasted.stdout).toMatch(/^secret {3}ok: /m);
    expect(pasted.stdout).toMatch(/^endpoint ok: .* 3 cost data sources visible/m);
    expect(pasted.stdout).toMatch(/^output {3}ok: .*export-out takes a write/m);
    expect(pasted.stderr).not.toMatch(/EBADENGINE|needs Node 24/);
  }, 150_000);

  it('prints a costs command that exports the day as pasted, with the machine node first on PATH', async () => {
    const line = /^ {2}(npm run cli -- costs .*)$/m.exec(printed)?.[1];
    expect(line).toBeDefined();
    // As printed but for the destination: ./export-out would land in the checkout.
    const out = join(work, 'pasted-out');
    expect(line).toContain(' --out ./export-out ');

    const pasted = await promisify(execFile)(
      'bash',
      ['-c', line!.replace(' --out ./export-out ', ` --out ${out} `)],
      {
        cwd: ROOT,
        env: { ...process.env, PATH: withoutThisNode(process.env.PATH ?? '') },
        timeout: 120_000,
      },
    );

    expect(pasted.stdout).toMatch(
      /^ {2}3 data sources: 3 units \(data source × day\) planned: 3 written, 0 empty/m,
    );
    expect(pasted.stderr).not.toMatch(/EBADENGINE|needs Node 24/);
    expect((await readdir(join(out, 'costs'))).length).toBeGreaterThan(0);
  }, 150_000);
});
