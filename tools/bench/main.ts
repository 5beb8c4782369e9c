// npm run bench [-- --rows 5000000]: the cost export measured against the local simulator and
// s3rver. The page source (simulator + recording front) and s3rver run in their own processes;
// each measured stage runs alone in a fresh process built as the Lambda is (esbuild, ESM).
// The reading stage (reading.ts) ends the run: --no-reading skips it, --reading-only runs it alone.
// Prints progress on stderr, then the table, the targets and one JSON line on stdout.
import { writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { addDays } from '../../functions/lib/dates.ts';
import { startS3 } from '../../harness/s3-server.ts';
import { measureBundles } from './bundles.ts';
import { bestOf, bundleStage, machine, runStage, startSource } from './harness.ts';
import { profileSizes } from './profile.ts';
import { describeReading, measureReading, READING_SCALE, readingSummary } from './reading.ts';
import { againstRecord, type BenchRecord, RECORD_FILE, recordIfAny, writeRecordDocs } from './record.ts';
import { type Figures, type InventoryFigures, type Row, render } from './report.ts';
import type { StageResult, StageSpec } from './stage.ts';

const BUCKET = 'bench';
const FROM = '2026-01-01';
const REFERENCE_ROWS = 1_000_000;

const { values: args } = parseArgs({
  allowNegative: true,
  options: {
    rows: { type: 'string', default: '1000000' },
    'data-sources': { type: 'string', default: '4' },
    'unit-rows': { type: 'string', default: '62500' },
    concurrency: { type: 'string', default: '4' },
    latency: { type: 'string', default: '100' },
    'baseline-rows': { type: 'string', default: '125000' },
    'row-group': { type: 'string' },
    'part-size-mb': { type: 'string' },
    repeat: { type: 'string', default: '2' },
    services: { type: 'string', default: '200000' },
    reading: { type: 'boolean', default: true },
    'reading-only': { type: 'boolean', default: false },
    'reading-rows-per-day': { type: 'string', default: String(READING_SCALE.rowsPerDay) },
    'reading-snapshot-days': { type: 'string', default: String(READING_SCALE.snapshotDays) },
    'reading-years': { type: 'string', default: String(READING_SCALE.years) },
    // Writes docs/bench-record.json and the figures of docs/performance.md and the README from it.
    record: { type: 'boolean', default: false },
  },
});
const readingScale = {
  ...READING_SCALE,
  rowsPerDay: Number(args['reading-rows-per-day']),
  snapshotDays: Number(args['reading-snapshot-days']),
  years: Math.max(1, Number(args['reading-years'])),
};
const dataSources = Number(args['data-sources']);
const days = Math.max(1, Math.round(Number(args.rows) / (dataSources * Number(args['unit-rows']))));
const unitRows = Math.round(Number(args.rows) / (dataSources * days));
const to = addDays(FROM, days - 1);
const concurrency = Number(args.concurrency);
const latencyMs = Number(args.latency);
const rowGroupRows = args['row-group'] ? Number(args['row-group']) : undefined;
const partSizeMb = args['part-size-mb'] ? Number(args['part-size-mb']) : undefined;
const repeat = Math.max(1, Number(args.repeat));
const fewerUnits = Math.max(1, Math.floor(concurrency / 2));

const progress = (text: string) => process.stderr.write(`${text}\n`);

async function main(): Promise<void> {
  if (args['reading-only']) {
    const reading = await measureReading(readingScale);
    console.log(describeReading(reading));
    const summary = { reading: readingSummary(reading), machine: machine() };
    console.log(JSON.stringify(summary));
    console.log(`\n${againstRecord(recordIfAny(), summary)}`);
    return;
  }
  progress(
    `bench: ${dataSources} data sources × ${days} days × ${unitRows.toLocaleString('en-US')} rows, concurrency ${concurrency}`,
  );
  const [stageScript, source, s3] = await Promise.all([
    bundleStage(),
    startSource({ seed: 7, dataSources, from: FROM, to, rowsPerDay: unitRows, exactRowsPerDay: true }),
    startS3({ buckets: [BUCKET] }),
  ]);
  try {
    const spec = (kind: StageSpec['kind'], more: Partial<StageSpec> = {}): StageSpec => ({
      kind,
      url: source.ready.url,
      token: source.ready.token,
      from: FROM,
      to,
      concurrency,
      rowGroupRows,
      ...more,
    });
    const s3Sink = { sink: { kind: 's3' as const, endpoint: s3.endpoint, bucket: BUCKET, partSizeMb } };
    const simulator = await runStage(stageScript, 'simulator, live (recording)', spec('limit'));
    // The pipeline asks more than the pages (cost/analyze when planning, data-source/get before
    // publishing): recorded too, or the first pipeline round would wait on the live simulator.
    await runStage(
      stageScript,
      'pipeline, recording its other calls',
      spec('pipeline', { sink: { kind: 'dir' } }),
    );
    // Stages in turn, `repeat` rounds: a busy neighbour then slows every stage alike, and the
    // best round of each is kept (with the highest peak RSS of all rounds).
    const rounds: Record<string, StageResult[]> = {};
    const measure = async (name: string, stage: StageSpec) => {
      const done = rounds[name] ?? [];
      rounds[name] = done;
      done.push(await runStage(stageScript, `${name}, round ${done.length + 1}`, stage));
    };
    const referenceTo = addDays(FROM, Math.max(1, Math.round(REFERENCE_ROWS / (dataSources * unitRows))) - 1);
    for (let round = 0; round < repeat; round++) {
      await measure('limit', spec('limit'));
      await measure('pipeline → dir', spec('pipeline', { sink: { kind: 'dir' } }));
      await measure('pipeline → S3', spec('pipeline', s3Sink));
      await measure('pipeline → S3, GZIP', spec('pipeline', { ...s3Sink, compression: 'GZIP' }));
      await source.setLatency(latencyMs);
      await measure(`limit, ${latencyMs} ms/page`, spec('limit'));
      await measure(`pipeline → S3, ${latencyMs} ms/page`, spec('pipeline', s3Sink));
      // Half the units: the same latency with a bound this machine's CPU can carry, so the share
      // says whether pages wait on the exporter rather than how many cores the bench has.
      await measure(`pipeline → S3, ${latencyMs} ms/page, ${fewerUnits} units`, {
        ...spec('pipeline', s3Sink),
        concurrency: fewerUnits,
      });
      await source.setLatency(0);
      if (Number(args.rows) > REFERENCE_ROWS)
        await measure('pipeline → S3, 1 M rows', spec('pipeline', { ...s3Sink, to: referenceTo }));
    }
    const baselineUnits = Math.max(1, Math.ceil(Number(args['baseline-rows']) / unitRows));
    const baseline = await runStage(
      stageScript,
      'baseline parquetjs-lite',
      spec('baseline', { units: baselineUnits }),
    );
    const hyparquet = await runStage(
      stageScript,
      'baseline hyparquet-writer',
      spec('hyparquet', { units: baselineUnits }),
    );
    const sizes = await profileSizes(source.ready.url, source.ready.token, FROM);
    const inventory = await measureInventory(stageScript, Number(args.services));
    progress('bundles: building each function and timing its cold import');
    const bundles = await measureBundles();
    // A failed reading stage is said and left out; the stages measured before it still count.
    const reading = args.reading
      ? await measureReading(readingScale).catch((error: unknown) => {
          progress(`reading: FAILED, left out of this run: ${String(error)}`);
          return undefined;
        })
      : undefined;
    const best = (stage: string, note: string): Row => ({
      stage,
      note: repeat > 1 ? `${note}; best of ${repeat}` : note,
      result: bestOf(rounds[stage]!),
    });
    const figures: Figures = {
      rows: rounds.limit![0]!.rows,
      simulator: {
        stage: 'simulator, live',
        note: 'fetch + parse while recording: the simulator bounds it',
        result: simulator,
      },
      limit: best('limit', 'fetch + parse every page, same client and concurrency'),
      pipelineDir: best('pipeline → dir', 'runCostExport to a local directory'),
      pipelineS3: best('pipeline → S3', 'runCostExport to s3rver, ZSTD (the headline)'),
      pipelineGzip: best('pipeline → S3, GZIP', 'the same with PARQUET_COMPRESSION=GZIP'),
      latency: best(`pipeline → S3, ${latencyMs} ms/page`, 'latency added to every answer'),
      limitLatency: best(
        `limit, ${latencyMs} ms/page`,
        'fetch + parse alone at that latency: the most the pages in flight give here',
      ),
      latencyFewer: best(
        `pipeline → S3, ${latencyMs} ms/page, ${fewerUnits} units`,
        'the same with half the units paging at once',
      ),
      fewerUnits,
      latencyMs,
      // Units paging at once: no more than there are units.
      concurrency: Math.min(concurrency, dataSources * days),
      baseline: {
        stage: 'baseline parquetjs-lite',
        note: `a sample of ${baselineUnits} units, same client and mapping`,
        result: baseline,
      },
      hyparquet: {
        stage: 'baseline hyparquet-writer',
        note: `its own writer, same schema, GZIP and row groups; a sample of ${baselineUnits} units`,
        result: hyparquet,
      },
      reference: rounds['pipeline → S3, 1 M rows']
        ? best('pipeline → S3, 1 M rows', 'reference for memory')
        : undefined,
      sizes,
      bundles,
      inventory,
      reading,
    };
    const text = render(figures, machine());
    console.log(text);
    compareAndRecord(JSON.parse(text.slice(text.lastIndexOf('\n') + 1)) as Record<string, unknown>);
  } finally {
    source.stop();
    await s3.stop();
    await rm(stageScript, { force: true });
  }
}

/** This run's figures next to the last recorded run's; with --record, this run becomes the record. */
function compareAndRecord(summary: Record<string, unknown>): void {
  console.log(`\n${againstRecord(recordIfAny(), summary)}`);
  if (!args.record) return;
  const record: BenchRecord = {
    recordedAt: new Date().toISOString(),
    args: process.argv.slice(2),
    summary,
  };
  writeFileSync(RECORD_FILE, `${JSON.stringify(record, null, 2)}\n`);
  writeRecordDocs(record);
  progress(`recorded: ${RECORD_FILE}, docs/performance.md and README.md rewritten from it`);
}

/** Cloud services: their own limit and the export, against a source of their own (recorded first). */
async function measureInventory(
  stageScript: string,
  services: number,
): Promise<InventoryFigures | undefined> {
  if (services <= 0) return undefined;
  progress(`inventory: ${services.toLocaleString('en-US')} cloud services`);
  const source = await startSource({
    seed: 7,
    dataSources: 1,
    from: FROM,
    to: FROM,
    cloudServices: services,
  });
  try {
    const spec = (kind: StageSpec['kind']): StageSpec => ({
      kind,
      url: source.ready.url,
      token: source.ready.token,
      from: FROM,
      to: FROM,
      concurrency,
    });
    await runStage(stageScript, 'inventory, live (recording)', spec('inventory-limit'));
    const limit = await runStage(stageScript, 'inventory limit', spec('inventory-limit'));
    const pipeline = await runStage(stageScript, 'inventory → dir', spec('inventory'));
    return { services, limit, pipeline };
  } finally {
    source.stop();
  }
}

await main();
