// The bench's processes: the stage bundle, the page source, one fresh process per stage.
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { LAMBDA_NODE_FLAGS, LAMBDA_RUNTIME_ENV } from '../../infra/lambda-node-options.ts';
import { pageFigures } from './model.ts';
import { rowsPerSec } from './report.ts';
import type { SourceReady } from './source-process.ts';
import type { StageResult, StageSpec } from './stage.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const progress = (text: string) => process.stderr.write(`${text}\n`);

/**
 * The stage entry bundled like the Lambda (ESM, createRequire banner); parquetjs-lite cannot be.
 * `root`: the tree whose code is bundled (bench:ab bundles several); `name`: the file's name.
 */
export async function bundleStage(root = ROOT, name = `stage-${process.pid}`): Promise<string> {
  const outdir = `${ROOT}node_modules/.cache/bench`;
  await mkdir(outdir, { recursive: true });
  // One file a bench process: node_modules (and so this folder) may be shared by several
  // worktrees, each running its own bench.
  const outfile = `${outdir}/${name}.mjs`;
  await build({
    entryPoints: [`${root.endsWith('/') ? root : `${root}/`}tools/bench/stage.ts`],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    mainFields: ['module', 'main'],
    external: ['parquetjs-lite'],
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  return outfile;
}

export interface Source {
  readonly ready: SourceReady;
  setLatency(ms: number): Promise<void>;
  stop(): void;
}

export async function startSource(options: Record<string, unknown>): Promise<Source> {
  const child = fork(`${ROOT}tools/bench/source-process.ts`, [JSON.stringify(options)], {
    execArgv: ['--import', 'tsx'],
  });
  const ready = await firstMessage<SourceReady>(child, 'page source');
  return {
    ready,
    async setLatency(ms) {
      const ack = firstMessage(child, 'page source');
      child.send({ latencyMs: ms });
      await ack;
    },
    stop: () => child.disconnect(),
  };
}

/** The fastest of several runs of one stage, carrying the highest peak RSS among them. */
export function bestOf(results: readonly StageResult[]): StageResult {
  const fastest = results.reduce((a, b) => (b.wallMs < a.wallMs ? b : a));
  const hungriest = results.reduce((a, b) => (b.peakRssMb > a.peakRssMb ? b : a));
  const { peakRssMb, peakHeapMb, peakExternalMb, peakArrayBuffersMb } = hungriest;
  return { ...fastest, peakRssMb, peakHeapMb, peakExternalMb, peakArrayBuffersMb };
}

export async function runStage(
  script: string,
  stage: string,
  spec: StageSpec,
  /** Node flags after the functions' own (a later V8 flag wins), and NAME=value variables: bench:ab's variants. */
  more: readonly string[] = [],
): Promise<StageResult> {
  const moreEnv = Object.fromEntries(more.filter((m) => /^[A-Z_]+=/.test(m)).map((m) => m.split(/=(.*)/s)));
  const moreFlags = more.filter((m) => !/^[A-Z_]+=/.test(m));
  // The functions' own Node flags (but source maps, which the bench bundle does not carry) and
  // environment.
  const flags = [...LAMBDA_NODE_FLAGS.filter((f) => f !== '--enable-source-maps'), ...moreFlags];
  const child = fork(script, [JSON.stringify(spec)], {
    execArgv: ['--no-warnings', ...flags],
    env: { ...process.env, ...LAMBDA_RUNTIME_ENV, ...moreEnv },
  });
  const message = await firstMessage<{ result?: StageResult; error?: string }>(child, stage);
  if (!message.result) throw new Error(`bench stage '${stage}' failed: ${message.error}`);
  progress(`  ${stage}: ${describe(message.result)}`);
  return message.result;
}

function describe(r: StageResult): string {
  const mb = (n: number) => n.toFixed(0);
  const pages = pageFigures(r);
  const perMillion =
    r.bytes > 0 ? `, ${(((r.bytes / r.rows) * 1e6) / 1048576).toFixed(1)} MB per M rows` : '';
  return (
    `${r.rows.toLocaleString('en-US')} rows in ${(r.wallMs / 1000).toFixed(1)} s, ` +
    `${Math.round(rowsPerSec(r)).toLocaleString('en-US')} rows/s, ${((r.cpuMs * 1000) / r.rows).toFixed(1)} CPU µs/row` +
    `${perMillion}; RSS ${mb(r.startRssMb)} → ${mb(r.peakRssMb)} MB ` +
    `(at the peak: heap ${mb(r.peakHeapMb)}, external ${mb(r.peakExternalMb)} of which buffers ${mb(r.peakArrayBuffersMb)})` +
    (pages
      ? `; ${pages.pages} cost pages, ${pages.roundTripMs.toFixed(1)} ms a page asked to last byte, ` +
        `${pages.outOnAverage.toFixed(2)} out on average`
      : '') +
    (r.mainThreadMs === undefined
      ? ''
      : `; main thread busy ${((r.mainThreadMs / r.wallMs) * 100).toFixed(0)} %` +
        (pages ? `, ${(r.mainThreadMs / pages.pages).toFixed(1)} ms a page` : ''))
  );
}

function firstMessage<T>(child: ChildProcess, name: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`${name} exited (${code}) before answering`));
    child.once('exit', onExit);
    child.once('message', (message) => {
      child.off('exit', onExit);
      resolve(message as T);
    });
  });
}

export function machine(): Record<string, string | number> {
  const cpu = /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown';
  return {
    nproc: availableParallelism(),
    cpu,
    node: process.version,
    loadavg1m: Number(loadavg()[0]!.toFixed(2)),
  };
}
