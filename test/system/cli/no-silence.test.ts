// No command is silent for more than 5 s: each slow path a newcomer meets runs as its own process
// with stdout and stderr on pipes (as `… | tee log`), and the longest gap between two lines (the
// start and the exit counted as lines) stays within 5 s. A heartbeat due every 5 s reaches the
// pipe a little after its 5 s on a busy machine, hence LATE_S; a missing heartbeat is 10 s.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RawServer, startSilentServer } from '../../../harness/raw-tcp.ts';
import { appFolder, makeTestToken } from '../../../harness/tokens.ts';
import { runTimed, startServerTimed, type TimedRun, transcript } from '../../support/line-gaps.ts';

const ROOT = new URL('../../..', import.meta.url);
const BUDGET_S = 5;
const LATE_S = 0.75;
const NODE = process.execPath;
const CLI = ['bin/cloudforet-export.mjs'];
/** The environment of a shell with no AWS set up but a region, so nothing reaches AWS. */
const ENV = {
  ...process.env,
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  AWS_EC2_METADATA_DISABLED: 'true',
};

function expectNoLongSilence(run: TimedRun): void {
  const { seconds, after } = run.longestGap;
  expect(seconds, `silent ${seconds} s after '${after}':\n${transcript(run)}`).toBeLessThanOrEqual(
    BUDGET_S + LATE_S,
  );
}

let work: string;
let silent: RawServer;
let secretFile: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'no-silence-'));
  silent = await startSilentServer();
  ({ secretFile } = await appFolder('no-silence', makeTestToken()));
});
afterAll(async () => {
  await silent.close();
  await rm(work, { recursive: true, force: true });
  await rm(join(secretFile, '..'), { recursive: true, force: true });
});

describe('no command is silent for more than 5 s', () => {
  it('tools/with-node24.sh while it installs Node 24 (npm simulated: 12 s, no network)', async () => {
    // A node that says it is 20 and an npm that takes 12 s to "install" the real node into the
    // cache folder the script names: the script's own wait loop, nothing of the registry.
    const fake = join(work, 'fake-bin');
    await mkdir(fake, { recursive: true });
    await writeFile(join(fake, 'node'), '#!/bin/sh\necho 20\n');
    await writeFile(
      join(fake, 'npm'),
      [
        '#!/bin/sh',
        'while [ "$1" != "--prefix" ]; do shift; done',
        'sleep 12',
        'arch=$(uname -m | sed -e s/x86_64/x64/ -e s/aarch64/arm64/)',
        'mkdir -p "$2/node_modules/node-linux-$arch/bin"',
        `ln -s '${NODE}' "$2/node_modules/node-linux-$arch/bin/node"`,
        '',
      ].join('\n'),
    );
    await chmod(join(fake, 'node'), 0o755);
    await chmod(join(fake, 'npm'), 0o755);

    const run = await runTimed(
      'bash',
      ['tools/with-node24.sh', 'node', '-p', '"node " + process.versions.node'],
      {
        cwd: ROOT,
        env: { ...ENV, PATH: `${fake}${delimiter}${process.env.PATH}`, XDG_CACHE_HOME: join(work, 'cache') },
      },
    );

    expect(run.code).toBe(0);
    expect(run.lines.at(-1)?.text).toMatch(/^node 24\./);
    expect(run.lines.filter((l) => /still installing Node 24/.test(l.text)).length).toBeGreaterThanOrEqual(2);
    expectNoLongSilence(run);
  }, 40_000);

  it('npm run simulator until it prints what to paste, then costs against it on a pipe', async () => {
    const simulator = startServerTimed(
      'npm',
      [
        'run',
        '-s',
        'simulator',
        '--',
        '--port',
        '0',
        '--days',
        '10',
        '--secret-file',
        join(work, 'app.json'),
      ],
      /^Ctrl-C stops it\.$/,
      { cwd: ROOT, env: ENV },
    );
    const printed = (await simulator.ready).map((l) => l.text).join('\n');
    const url = /^Cloudforet simulator at (\S+)/m.exec(printed)?.[1] ?? 'the simulator printed no endpoint';

    const costs = await runTimed(
      NODE,
      [
        ...CLI,
        'costs',
        '--endpoint',
        url,
        '--secret-file',
        join(work, 'app.json'),
        '--out',
        join(work, 'out'),
      ],
      { cwd: ROOT, env: ENV },
    );
    const started = await simulator.stop();

    expectNoLongSilence(started);
    expect(costs.code).toBe(0);
    expectNoLongSilence(costs);
    // On a pipe progress is one line per step, each on its own line: never a redraw.
    expect(costs.raw).not.toContain('\r');
    const steps = costs.lines.filter((l) => /^costs: \d+\/\d+ units/.test(l.text));
    expect(steps.length).toBeGreaterThanOrEqual(5);
  }, 60_000);

  it('costs against an endpoint that answers nothing, until it gives up', async () => {
    const run = await runTimed(
      NODE,
      [
        ...CLI,
        'costs',
        '--endpoint',
        silent.url,
        '--secret-file',
        secretFile,
        '--out',
        join(work, 'out-silent'),
        ...['--timeout', '11', '--give-up-after', '11'],
      ],
      { cwd: ROOT, env: ENV, killAfterMs: 30_000 },
    );

    expect(run.code, transcript(run)).toBe(1);
    expect(run.lines.filter((l) => /^costs: waiting for /.test(l.text))).toHaveLength(2);
    expectNoLongSilence(run);
  }, 40_000);

  it('check against an endpoint that answers nothing (its 10 s per request)', async () => {
    const run = await runTimed(
      NODE,
      [
        ...CLI,
        'check',
        '--endpoint',
        silent.url,
        '--secret-file',
        secretFile,
        '--out',
        join(work, 'out-check'),
      ],
      { cwd: ROOT, env: ENV, killAfterMs: 30_000 },
    );

    expect(run.code, transcript(run)).toBe(1);
    expect(run.lines.filter((l) => /^check: waiting for .*: no answer for 5 s/.test(l.text))).toHaveLength(1);
    expectNoLongSilence(run);
  }, 40_000);

  it('costs reading its secret from a Secrets Manager that answers nothing', async () => {
    const run = await runTimed(
      NODE,
      [
        ...CLI,
        ...['costs', '--endpoint', silent.url, '--secret-id', 'cloudforet/app'],
        ...['--out', join(work, 'out-secret'), '--timeout', '3'],
      ],
      { cwd: ROOT, env: { ...ENV, AWS_ENDPOINT_URL_SECRETS_MANAGER: silent.url }, killAfterMs: 40_000 },
    );

    expect(run.code).toBe(2);
    expect(
      run.lines.some((l) =>
        /^costs: reading the secret 'cloudforet\/app' from AWS Secrets Manager: no answer for 5 s/.test(
          l.text,
        ),
      ),
    ).toBe(true);
    expect(run.lines.at(-1)?.text).toMatch(/answered nothing in time.*\[SECRET_FETCH_FAILED\]$/);
    expectNoLongSilence(run);
  }, 50_000);

  it("npm run invoke: the local services, then the function's run of the default window", async () => {
    const run = await runTimed(
      'npm',
      ['run', '-s', 'invoke', '--', 'cost-export', 'events/costs-default-window.json'],
      {
        cwd: ROOT,
        env: ENV,
        killAfterMs: 50_000,
      },
    );

    expect(run.code).toBe(0);
    expect(run.lines.some((l) => /^invoke: local services ready in/.test(l.text))).toBe(true);
    expectNoLongSilence(run);
  }, 60_000);
});
