// Peak memory of an inventory snapshot of every cloud service (includeInactive): the simulator
// runs in a child process (its generated records are not ours to count); this process exports
// into a temporary directory and samples its RSS. npx tsx tools/inventory-memory.ts [--services N] [--row-group N]
import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CloudforetClient, createDispatcher } from '../functions/lib/cloudforet/client.ts';
import { runInventoryExport } from '../functions/lib/inventory/run.ts';
import { dirSink } from '../functions/lib/storage/dir-sink.ts';
import { startSimulator } from '../harness/simulator/index.ts';
import { LAMBDA_NODE_FLAGS, LAMBDA_RUNTIME_ENV } from '../infra/lambda-node-options.ts';

const MB = 1024 * 1024;
const { values } = parseArgs({
  options: {
    services: { type: 'string', default: '200000' },
    'row-group': { type: 'string' },
    simulator: { type: 'boolean' },
    measure: { type: 'boolean' },
  },
});

if (values.simulator) await serveSimulator(Number(values.services));
else if (values.measure)
  await measure(Number(values.services), values['row-group'] ? Number(values['row-group']) : undefined);
else await underFunctionFlags();

/**
 * The measuring process runs with the functions' own Node flags and environment (infra/lambda-node-options.ts),
 * as the bench's stages do: without them Node 24 sizes the young generation from the host's memory.
 */
async function underFunctionFlags(): Promise<void> {
  const flags = LAMBDA_NODE_FLAGS.filter((f) => f !== '--enable-source-maps');
  const child = fork(fileURLToPath(import.meta.url), [...process.argv.slice(2), '--measure'], {
    execArgv: ['--import', 'tsx', ...flags],
    env: { ...process.env, ...LAMBDA_RUNTIME_ENV },
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  process.exitCode = code ?? 1;
}

/** Child: start the simulator and tell the parent where it is. */
async function serveSimulator(services: number): Promise<void> {
  const simulator = await startSimulator({ cloudServices: services, seed: 7 });
  const listed = [...simulator.cloudServiceTruth({ includeInactive: true }).values()].reduce(
    (a, b) => a + b,
    0,
  );
  process.send?.({ url: simulator.url, token: simulator.issueToken(), listed });
  process.on('disconnect', () => void simulator.close().then(() => process.exit(0)));
}

async function measure(services: number, rowGroupRows: number | undefined): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), ['--simulator', '--services', String(services)], {
    execArgv: ['--import', 'tsx'],
  });
  const { url, token, listed } = await new Promise<{ url: string; token: string; listed: number }>(
    (resolve, reject) => {
      child.once('message', (m) => resolve(m as { url: string; token: string; listed: number }));
      child.once('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
    },
  );
  const dir = await mkdtemp(join(tmpdir(), 'inventory-memory-'));
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  let peakHeap = 0;
  const sampler = setInterval(() => {
    const usage = process.memoryUsage();
    peak = Math.max(peak, usage.rss);
    peakHeap = Math.max(peakHeap, usage.heapUsed);
  }, 20);
  try {
    const client = new CloudforetClient({ endpoint: url, token, dispatcher: createDispatcher() });
    const summary = await runInventoryExport(
      { client, sink: dirSink(dir), credential: { domainId: 'domain', workspaceId: '*' }, rowGroupRows },
      { snapshotDate: new Date().toISOString().slice(0, 10), includeInactive: true },
    );
    clearInterval(sampler);
    const cs = summary.tables.cloud_services;
    console.log(
      JSON.stringify({
        cloudServicesInSource: listed,
        cloudServicesExported: cs?.rows,
        cloudServicesBytes: cs?.bytes,
        rowGroupRows: rowGroupRows ?? 'per table (cloud_services 10,000)',
        failed: summary.failed,
        durationMs: summary.durationMs,
        rowsPerSecond: Math.round((summary.rows / summary.durationMs) * 1000),
        baselineRssMB: Math.round(baseline / MB),
        peakRssMB: Math.round(peak / MB),
        peakHeapUsedMB: Math.round(peakHeap / MB),
      }),
    );
  } finally {
    clearInterval(sampler);
    child.disconnect();
    await rm(dir, { recursive: true, force: true });
  }
}
