// One measured stage of the bench, alone in its own process so that its peak RSS and CPU time
// are its own. Bundled by esbuild as the Lambda is; argv[2] is a StageSpec, the StageResult
// goes back over IPC.
import diagnostics from 'node:diagnostics_channel';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { CloudforetClient, createDispatcher } from '../../functions/lib/cloudforet/client.ts';
import { listPages } from '../../functions/lib/cloudforet/pager.ts';
import { costDayRequest } from '../../functions/lib/costs/days/export-day.ts';
import { runCostExport } from '../../functions/lib/costs/run.ts';
import { listDataSources, virtualWorkspaceMap } from '../../functions/lib/costs/sources/data-sources.ts';
import { daysBetween } from '../../functions/lib/dates.ts';
import { limitHeapGrowth } from '../../functions/lib/heap-growth.ts';
import { forEachLimit } from '../../functions/lib/pool.ts';
import { dirSink } from '../../functions/lib/storage/dir-sink.ts';
import { s3Sink } from '../../functions/lib/storage/s3-sink.ts';
import type { Sink } from '../../functions/lib/storage/sink.ts';
import { type CostContext, costTable } from '../../functions/lib/tables/costs.ts';
import { type BaselineWriter, openBaselineWriter } from './baseline-writer.ts';
import { openHyparquetWriter } from './hyparquet-baseline.ts';
import { exportCloudServices, fetchCloudServices } from './inventory-stage.ts';

export type StageKind = 'limit' | 'pipeline' | 'baseline' | 'hyparquet' | 'inventory-limit' | 'inventory';

export interface StageSpec {
  readonly kind: StageKind;
  readonly url: string;
  readonly token: string;
  readonly from: string;
  readonly to: string;
  readonly concurrency: number;
  /** pipeline only: where the objects go. */
  readonly sink?: { kind: 'dir' } | { kind: 's3'; endpoint: string; bucket: string; partSizeMb?: number };
  readonly rowGroupRows?: number;
  /** pipeline only: the page codec (the writer's default unless set). */
  readonly compression?: 'ZSTD' | 'GZIP';
  /** baselines only: how many (data source, day) units to write. */
  readonly units?: number;
}

export interface StageResult {
  readonly rows: number;
  readonly wallMs: number;
  /** User + system CPU of the whole process (zlib's pool included) during the stage. */
  readonly cpuMs: number;
  readonly startRssMb: number;
  readonly peakRssMb: number;
  /** V8 heap and off-heap (Buffers) at the sampled RSS peak, every 50 ms. */
  readonly peakHeapMb: number;
  readonly peakExternalMb: number;
  /** Of which ArrayBuffers (Buffers, typed arrays); the rest is native memory such as zlib's. */
  readonly peakArrayBuffersMb: number;
  /** Parquet bytes written (0 for the limit). */
  readonly bytes: number;
  /** Cost pages answered, and the sum of their round trips (asked to last byte come), ms. */
  readonly pages: number;
  readonly pageRoundTripsMs: number;
  /**
   * Time the main thread ran (JavaScript, GC, callbacks: the event loop's active time), ms. The
   * pages' answers are read on that thread, so a busy one holds them back.
   */
  readonly mainThreadMs: number;
}

interface Unit {
  readonly dataSourceId: string;
  readonly date: string;
}

const MB = 1024 * 1024;

async function main(): Promise<StageResult> {
  // As every Lambda entry does when it loads (lambda/entry.ts).
  limitHeapGrowth();
  const spec = JSON.parse(process.argv[2] ?? '{}') as StageSpec;
  const startRssMb = process.resourceUsage().maxRSS / 1024;
  const client = new CloudforetClient({
    endpoint: spec.url,
    token: spec.token,
    dispatcher: createDispatcher(),
    // As the functions read it: the live simulator's cost/analyze over 5 M rows can take longer
    // than the default 60 s on a busy machine (docs/performance.md, Bytes, round 2).
    ...(process.env.CLOUDFORET_TIMEOUT_MS && { requestTimeoutMs: Number(process.env.CLOUDFORET_TIMEOUT_MS) }),
  });
  let peak = process.memoryUsage();
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    if (now.rss > peak.rss) peak = now;
  }, 50);
  const roundTrips = trackPages();
  const started = performance.now();
  const loop = performance.eventLoopUtilization();
  const cpu = process.cpuUsage();
  const { rows, bytes } = await runStage(spec, client).finally(() => clearInterval(sampler));
  const { pages, pageRoundTripsMs } = roundTrips();
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const mainThreadMs = performance.eventLoopUtilization(loop).active;
  return {
    rows,
    wallMs,
    cpuMs: (used.user + used.system) / 1000,
    startRssMb,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    peakHeapMb: peak.heapTotal / MB,
    peakExternalMb: peak.external / MB,
    peakArrayBuffersMb: peak.arrayBuffers / MB,
    bytes,
    pages,
    pageRoundTripsMs,
    mainThreadMs,
  };
}

/**
 * Cost pages' round trips as undici sees them (its diagnostics channels): from the request made to
 * the answer's last byte. What the pages in flight were doing, for the latency stages' report.
 */
function trackPages(): () => { pages: number; pageRoundTripsMs: number } {
  const asked = new WeakMap<object, number>();
  let pages = 0;
  let pageRoundTripsMs = 0;
  type Message = { request: { path: string } };
  const create = (message: unknown) => {
    const { request } = message as Message;
    if (request.path.startsWith(COST_LIST)) asked.set(request, performance.now());
  };
  const done = (message: unknown) => {
    const { request } = message as Message;
    const at = asked.get(request);
    if (at === undefined) return;
    asked.delete(request);
    pages++;
    pageRoundTripsMs += performance.now() - at;
  };
  diagnostics.subscribe('undici:request:create', create);
  diagnostics.subscribe('undici:request:trailers', done);
  return () => {
    diagnostics.unsubscribe('undici:request:create', create);
    diagnostics.unsubscribe('undici:request:trailers', done);
    return { pages, pageRoundTripsMs };
  };
}
const COST_LIST = '/cost-analysis/cost/list';

const numberFromEnv = (name: string): number | undefined =>
  process.env[name] ? Number(process.env[name]) : undefined;

function runStage(spec: StageSpec, client: CloudforetClient): Promise<{ rows: number; bytes: number }> {
  switch (spec.kind) {
    case 'limit':
      return fetchOnly(spec, client);
    case 'pipeline':
      return exportAll(spec, client);
    case 'baseline':
      return exportWithBaseline(spec, client, openBaselineWriter);
    case 'hyparquet':
      return exportWithBaseline(spec, client, async (...args) => openHyparquetWriter(...args));
    case 'inventory-limit':
      return fetchCloudServices(client);
    case 'inventory':
      return exportCloudServices(client);
  }
}

/** The same calls as runCostExport makes, each page fetched and parsed and then dropped. */
async function fetchOnly(
  spec: StageSpec,
  client: CloudforetClient,
): Promise<{ rows: number; bytes: number }> {
  const units = await listUnits(spec, client);
  let rows = 0;
  await forEachLimit(units, spec.concurrency, async (unit) => {
    for await (const page of costPages(client, unit)) rows += page.length;
  });
  return { rows, bytes: 0 };
}

async function exportAll(
  spec: StageSpec,
  client: CloudforetClient,
): Promise<{ rows: number; bytes: number }> {
  const dir = spec.sink?.kind === 'dir' ? await mkdtemp(join(tmpdir(), 'bench-export-')) : undefined;
  try {
    const summary = await runCostExport(
      {
        client,
        sink: openSink(spec, dir),
        concurrency: spec.concurrency,
        // bench:ab's variants may differ in it: `<dir>::BENCH_ROW_GROUP_ROWS=12500`.
        rowGroupRows: spec.rowGroupRows ?? numberFromEnv('BENCH_ROW_GROUP_ROWS'),
        compression: spec.compression,
        unitAttempts: 1,
        // The bench measures cost days; a unified-cost month is a small unit of its own.
        unifiedCosts: false,
        focus: false,
      },
      // force: every day is exported, whatever a previous stage published.
      { from: spec.from, to: spec.to, force: true },
    );
    if (summary.failed > 0) throw new Error(`export failed: ${JSON.stringify(summary.failures[0])}`);
    return { rows: summary.rows, bytes: summary.bytes };
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

function openSink(spec: StageSpec, dir: string | undefined): Sink {
  if (spec.sink?.kind === 's3') {
    const client = new S3Client({
      region: 'us-east-1',
      endpoint: spec.sink.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    const partSize = spec.sink.partSizeMb === undefined ? undefined : spec.sink.partSizeMb * MB;
    return s3Sink({ client, bucket: spec.sink.bucket, prefix: `bench-${process.pid}`, partSize });
  }
  if (!dir) throw new Error('a pipeline stage needs a sink');
  return dirSink(dir);
}

/** The first units of the run, mapped by costTable and written by another writer. */
async function exportWithBaseline(
  spec: StageSpec,
  client: CloudforetClient,
  open: (table: typeof costTable, context: CostContext, path: string) => Promise<BaselineWriter>,
): Promise<{ rows: number; bytes: number }> {
  const units = (await listUnits(spec, client)).slice(0, spec.units ?? 1);
  const context: CostContext = {
    currency: 'USD',
    workspaceOfVirtual: await virtualWorkspaceMap(client),
    exportedAtMs: Date.now(),
  };
  const dir = await mkdtemp(join(tmpdir(), 'bench-baseline-'));
  let rows = 0;
  try {
    await forEachLimit(units, spec.concurrency, async (unit) => {
      const writer = await open(costTable, context, join(dir, `${unit.dataSourceId}-${unit.date}.parquet`));
      for await (const page of costPages(client, unit)) await writer.append(page);
      const written = await writer.close();
      rows += written;
    });
    let bytes = 0;
    for (const name of await readdir(dir)) bytes += (await stat(join(dir, name))).size;
    return { rows, bytes };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function listUnits(spec: StageSpec, client: CloudforetClient): Promise<Unit[]> {
  const dataSources = await listDataSources(client);
  await virtualWorkspaceMap(client);
  return dataSources.flatMap((ds) =>
    daysBetween(spec.from, spec.to).map((date) => ({ dataSourceId: ds.id, date })),
  );
}

/** Exactly the request exportCostUnit makes, so the recorded answers serve both. */
const costPages = (client: CloudforetClient, unit: Unit) =>
  listPages(client, costDayRequest(unit.dataSourceId, unit.date));

const reply = (message: unknown, code: number) => process.send?.(message, () => process.exit(code));
main().then(
  (result) => reply({ result }, 0),
  (error: unknown) =>
    reply({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) }, 1),
);
