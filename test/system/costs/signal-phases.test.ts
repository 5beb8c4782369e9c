// Ctrl-C and SIGTERM during each long phase of a run: the CLI in a child process, held in the phase
// by a silent endpoint or a simulator answer delayed for minutes, is sent the signal once its
// progress lines (and the request it waits on) say it is there. Each stop: within 2 s, the exit code
// of the signal (130, 143: a clean stop, not the grace timer's kill), one line saying so on stderr,
// and a destination the one verifier finds whole (no half-written object, nothing temporary).
// Mid-write of a day's object is test/system/costs/interrupt.test.ts's.
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { verifyDestination } from '../../../functions/lib/destination/verify-destination.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { s3Sink } from '../../../functions/lib/storage/s3-sink.ts';
import type { Sink } from '../../../functions/lib/storage/sink.ts';
import { type FaultyProxy, startFaultyProxy } from '../../../harness/faulty-proxy.ts';
import { type RawServer, startSilentServer } from '../../../harness/raw-tcp.ts';
import { listPendingUploads, type S3Server, startS3 } from '../../../harness/s3-server.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { appFolder } from '../../../harness/tokens.ts';
import { snapshotDir, tempFiles } from '../../support/unit-invariants.ts';

const BIN = fileURLToPath(new URL('../../../bin/cloudforet-export.mjs', import.meta.url));
const YESTERDAY = addDays(utcDay(new Date()), -1);
const FROM = addDays(YESTERDAY, -2);
const EXIT = { SIGINT: 130, SIGTERM: 143 } as const;
const HOLD_MS = 600_000;

const BUCKET = 'signal-bucket';

let sim: Simulator;
let silent: RawServer;
let s3: S3Server;
let proxy: FaultyProxy;
let dir: string;
let secretFile: string;

beforeAll(async () => {
  sim = await startSimulator({ seed: 29, dataSources: 2, from: FROM, to: YESTERDAY, rowsPerDay: 1500 });
  silent = await startSilentServer();
  s3 = await startS3({ buckets: [BUCKET] });
  proxy = await startFaultyProxy(s3.port);
  ({ dir, secretFile } = await appFolder('signal-phases', sim.issueToken()));
});
afterEach(() => {
  sim.clearFaults();
  proxy.clear();
});
afterAll(async () => {
  await Promise.all([sim.close(), silent.close(), proxy.close()]);
  await s3.stop();
  await rm(dir, { recursive: true, force: true });
});

interface Phase {
  readonly name: string;
  readonly argv: (out: string) => string[];
  /** The simulator answer held for minutes (none: the endpoint is the silent server). */
  readonly hold?: { readonly path: string; readonly afterRequests: number };
  /** The progress line on stderr that says the run reached the phase. */
  readonly line: RegExp;
  /** True once the run waits where the phase holds it. */
  readonly there: () => boolean;
  /** The destination is s3://BUCKET/<the out folder's name>, through the proxy that holds an upload. */
  readonly s3?: boolean;
  /** The S3 request held instead of an upload, once the phase's line is on stderr (none: an upload). */
  readonly s3Hold?: (r: { method: string; path: string }) => boolean;
}

/** True once the held request arrived (its fault taken); the simulator logs a request when answered. */
const held = () => sim.faultsPending() === 0;
const s3Prefix = (out: string) => out.split('/').pop()!;
const costs =
  (endpoint: () => string, s3 = false, ...more: string[]) =>
  (out: string) => [
    'costs',
    ...['--endpoint', endpoint(), '--secret-file', secretFile],
    ...['--out', s3 ? `s3://${BUCKET}/${s3Prefix(out)}` : out],
    ...['--from', FROM, '--to', YESTERDAY, '--force'],
    ...more,
  ];

const PHASES: Phase[] = [
  {
    name: 'costs, connecting to an endpoint that never answers',
    argv: costs(() => silent.url),
    line: /^costs: writing to /m,
    there: () => silent.connections > 0,
  },
  {
    name: 'costs, paging cost rows (a page held)',
    argv: costs(() => sim.url),
    hold: { path: '/cost-analysis/cost/list', afterRequests: 2 },
    line: /^costs: writing to /m,
    there: held,
  },
  {
    name: "costs, reading the months' unified costs",
    argv: costs(() => sim.url),
    hold: { path: '/cost-analysis/unified-cost/list', afterRequests: 0 },
    line: /; now the unified costs of the months$/m,
    there: held,
  },
  {
    name: 'costs, the FOCUS pass after the units',
    argv: costs(() => sim.url),
    hold: { path: '/identity/provider/list', afterRequests: 0 },
    line: /; now the FOCUS rows of the days$/m,
    there: held,
  },
  {
    name: 'costs, publishing a day to S3 (its upload held)',
    argv: costs(() => sim.url, true),
    s3: true,
    line: /^costs: writing to s3:/m,
    there: () => proxy.faultsInjected > 0,
  },
  {
    name: 'costs --verify, reading every object back from S3 (a read held)',
    argv: costs(() => sim.url, true, '--verify'),
    s3: true,
    line: /; now the check of every object against its manifest$/m,
    s3Hold: (r) => r.method === 'GET' && r.path.endsWith('.parquet'),
    there: () => proxy.faultsInjected > 0,
  },
  {
    name: 'inventory, listing cloud services',
    argv: (out) => ['inventory', '--endpoint', sim.url, '--secret-file', secretFile, '--out', out],
    hold: { path: '/inventory/cloud-service/list', afterRequests: 0 },
    line: /^inventory: writing to /m,
    there: held,
  },
];

async function stopDuring(phase: Phase, signal: keyof typeof EXIT, out: string) {
  sim.resetRequestLog();
  if (phase.hold) sim.injectFault({ ...phase.hold, kind: 'slow', delayMs: HOLD_MS, times: 1 });
  let err = '';
  const { s3Hold } = phase;
  if (s3Hold) proxy.failWhen({ kind: 'hold', match: (r) => phase.line.test(err) && s3Hold(r) });
  else if (phase.s3)
    proxy.failWhen({ kind: 'hold', match: (r) => r.method !== 'GET' && r.path.endsWith('.parquet') });
  const env = {
    ...process.env,
    AWS_ENDPOINT_URL_S3: proxy.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
  };
  const child = spawn(process.execPath, [BIN, ...phase.argv(out)], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env,
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<[number | null, string | null]>((resolve) =>
    child.once('exit', (code, by) => resolve([code, by])),
  );
  const until = Date.now() + 30_000;
  while (!(phase.line.test(err) && phase.there()) && Date.now() < until && child.exitCode === null)
    await new Promise((resolve) => setTimeout(resolve, 20));
  const reached = phase.line.test(err) && phase.there();
  const before = err.length;
  const sent = performance.now();
  child.kill(signal);
  const [code, by] = await exited;
  return { reached, code, by, seconds: (performance.now() - sent) / 1000, after: err.slice(before) };
}

describe('a signal during each long phase', () => {
  const cases = PHASES.flatMap((phase) =>
    (['SIGINT', 'SIGTERM'] as const).map((s) => [phase.name, s, phase] as const),
  );

  it.each(cases)(
    '%s: %s stops it within 2 s, in one line, nothing half-written',
    async (_, signal, phase) => {
      const out = join(dir, `${PHASES.indexOf(phase)}-${signal}`);

      const stopped = await stopDuring(phase, signal, out);

      expect(stopped.reached).toBe(true);
      expect(stopped.code).toBe(EXIT[signal]);
      expect(stopped.by).toBeNull();
      expect(stopped.seconds).toBeLessThan(2);
      // Besides progress lines and a warning per unit it stopped, what the run said: one line.
      const said = stopped.after
        .split('\n')
        .filter(
          (l) => l !== '' && !/^(costs|inventory): \d/.test(l) && !/^warn: [a-zA-Z ]+ stopped \(/.test(l),
        );
      expect(said).toEqual([
        `cloudforet-export: ${signal}: stopping; running units abort, nothing half-written stays`,
      ]);
      const sink: Sink = phase.s3
        ? s3Sink({ client: s3.client, bucket: BUCKET, prefix: s3Prefix(out) })
        : dirSink(out);
      const verified = await verifyDestination(sink, { checksums: true });
      expect(verified.findings).toEqual([]);
      expect(tempFiles(await snapshotDir(out).catch(() => new Map()))).toEqual([]);
      expect(await listPendingUploads(s3.dir, BUCKET)).toEqual([]);
    },
    60_000,
  );
});
