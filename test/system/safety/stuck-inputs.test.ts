// A run stuck where nothing can abort it (a FIFO nobody writes, a silent endpoint) still ends
// within the grace period of a SIGINT or SIGTERM. Inputs that used to hang a run for ever (a secret
// file that never ends, a destination under /proc) are rows of test/system/cli/bad-input-matrix.test.ts.
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, existsSync, openSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STOP_GRACE_MS } from '../../../cli/interrupt.ts';
import { makeDirectory } from '../../../functions/lib/storage/make-directory.ts';
import { type RawServer, startSilentServer } from '../../../harness/raw-tcp.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { appFolder } from '../../../harness/tokens.ts';

const BIN = fileURLToPath(new URL('../../../bin/cloudforet-export.mjs', import.meta.url));
const linux = process.platform === 'linux' && existsSync('/proc/self');

let sim: Simulator;
let dir: string;
let secretFile: string;

beforeAll(async () => {
  sim = await startSimulator({ seed: 5, dataSources: 1, rowsPerDay: 2 });
  ({ dir, secretFile } = await appFolder('stuck-inputs', sim.issueToken()));
});
afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

describe('makeDirectory', () => {
  it('makes every missing level and takes one that exists', async () => {
    const root = await mkdtemp(join(tmpdir(), 'make-directory-'));
    const deep = join(root, 'a', 'b', 'c');

    await makeDirectory(deep);
    await makeDirectory(deep);

    expect((await stat(deep)).isDirectory()).toBe(true);
    await rm(root, { recursive: true, force: true });
  });
});

describe.runIf(linux)('a signal while a run is stuck', () => {
  let silent: RawServer;
  let fifo: string;

  beforeAll(async () => {
    silent = await startSilentServer();
    fifo = join(dir, 'secret.fifo');
    execFileSync('mkfifo', [fifo]);
  });
  afterAll(async () => {
    await silent.close();
  });

  /** The CLI in a child, sent `signal` once `stuck()` says it waits where nothing aborts. */
  async function stopStuck(args: string[], signal: NodeJS.Signals, stuck: () => boolean) {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    const exited = new Promise<[number | null, string | null]>((resolve) =>
      child.once('exit', (code, sig) => resolve([code, sig])),
    );
    const until = Date.now() + 20_000;
    while (!stuck() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    const sent = performance.now();
    child.kill(signal);
    const [code, killedBy] = await exited;
    return { code, killedBy, err, seconds: (performance.now() - sent) / 1000 };
  }

  /** True once a reader holds the FIFO open; keeps the writer end open so the read blocks on. */
  const readerOn = (path: string) => () => {
    try {
      writer ??= openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
      return true;
    } catch {
      return false; // ENXIO: nobody reads it yet
    }
  };
  let writer: number | undefined;
  afterAll(() => {
    if (writer !== undefined) closeSync(writer);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'ends by %s within the grace period while reading a FIFO nobody writes',
    async (signal) => {
      const stopped = await stopStuck(
        ['check', '--endpoint', sim.url, '--secret-file', fifo, '--out', join(dir, 'fifo-out')],
        signal,
        readerOn(fifo),
      );
      closeSync(writer!);
      writer = undefined;

      expect(stopped.killedBy).toBe(signal);
      expect(stopped.seconds).toBeGreaterThanOrEqual(STOP_GRACE_MS / 1000 - 0.1);
      expect(stopped.seconds).toBeLessThan(STOP_GRACE_MS / 1000 + 3);
      expect(stopped.err).toContain(`${signal}: not stopped within 2 s; exiting now`);
    },
    40_000,
  );

  it('stops cleanly by SIGINT while waiting for a silent endpoint: the request aborts, exit 130', async () => {
    const stopped = await stopStuck(
      ['check', '--endpoint', silent.url, '--secret-file', secretFile, '--out', join(dir, 'silent-out')],
      'SIGINT',
      () => silent.connections > 0,
    );

    expect(stopped.code).toBe(130);
    expect(stopped.killedBy).toBeNull();
    expect(stopped.err).toMatch(/^\ncloudforet-export: SIGINT: stopping[^\n]*\n$/);
    expect(stopped.seconds).toBeLessThan(STOP_GRACE_MS / 1000);
  }, 40_000);
});
