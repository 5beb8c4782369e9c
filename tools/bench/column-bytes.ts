// npx tsx tools/bench/column-bytes.ts [--days N] [--rows-per-day N] [--keep DIR]: the bench's seeded
// world (seed 7, four data sources) exported as the bench's pipeline stage does (no unified costs,
// no FOCUS pass), then the costs objects' bytes per million rows, column by column, from their
// footers: where the bytes go, and which encoding each chunk took.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parquetMetadata } from 'hyparquet';
import { CloudforetClient, createDispatcher } from '../../functions/lib/cloudforet/client.ts';
import { runCostExport } from '../../functions/lib/costs/run.ts';
import { addDays } from '../../functions/lib/dates.ts';
import { dirSink } from '../../functions/lib/storage/dir-sink.ts';
import { startSimulator } from '../../harness/simulator/index.ts';

const { values: args } = parseArgs({
  options: {
    days: { type: 'string', default: '4' },
    'rows-per-day': { type: 'string', default: '62500' },
    'row-group': { type: 'string' },
    keep: { type: 'string' },
  },
});
const FROM = '2026-01-01';
const to = addDays(FROM, Number(args.days) - 1);
const simulator = await startSimulator({
  seed: 7,
  dataSources: 4,
  from: FROM,
  to,
  rowsPerDay: Number(args['rows-per-day']),
  exactRowsPerDay: true,
});
const dir = args.keep ?? (await mkdtemp(join(tmpdir(), 'column-bytes-')));
try {
  const client = new CloudforetClient({
    endpoint: simulator.url,
    token: simulator.issueToken(),
    dispatcher: createDispatcher(),
  });
  const summary = await runCostExport(
    {
      client,
      sink: dirSink(dir),
      concurrency: 4,
      unitAttempts: 1,
      unifiedCosts: false,
      focus: false,
      archiveAfterDays: 100_000,
      ...(args['row-group'] && { rowGroupRows: Number(args['row-group']) }),
    },
    { from: FROM, to, force: true },
  );
  if (summary.failed > 0) throw new Error(JSON.stringify(summary.failures[0]));
  const files = (await readdir(dir, { recursive: true }))
    .filter((f) => f.startsWith('costs') && f.endsWith('.parquet'))
    .sort();
  const columns = new Map<string, { bytes: number; dict: number; plain: number; chunks: number }>();
  let rows = 0;
  let bytes = 0;
  let footers = 0;
  for (const file of files) {
    const data = new Uint8Array(await readFile(join(dir, file)));
    bytes += data.length;
    const meta = parquetMetadata(
      data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer,
    );
    footers += Number(meta.metadata_length) + 12;
    rows += Number(meta.num_rows);
    for (const group of meta.row_groups) {
      for (const chunk of group.columns) {
        const m = chunk.meta_data!;
        const name = m.path_in_schema.join('.');
        const c = columns.get(name) ?? { bytes: 0, dict: 0, plain: 0, chunks: 0 };
        c.bytes += Number(m.total_compressed_size);
        c.chunks++;
        if (m.encodings.includes('RLE_DICTIONARY')) c.dict++;
        else c.plain++;
        columns.set(name, c);
      }
    }
  }
  const perM = (n: number) => ((n / rows) * 1e6).toLocaleString('en-US', { maximumFractionDigits: 0 });
  console.log(
    `${files.length} costs objects, ${rows.toLocaleString('en-US')} rows, ${perM(bytes)} bytes per million rows`,
  );
  for (const [name, c] of [...columns].sort((a, b) => b[1].bytes - a[1].bytes)) {
    console.log(`${name.padEnd(20)} ${perM(c.bytes).padStart(12)}  dict ${c.dict}/${c.chunks}`);
  }
  console.log(`${'footers'.padEnd(20)} ${perM(footers).padStart(12)}`);
} finally {
  await simulator.close();
  if (!args.keep) await rm(dir, { recursive: true, force: true });
}
