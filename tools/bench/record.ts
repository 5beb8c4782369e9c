// The last recorded `npm run bench -- --record`: docs/bench-record.json holds its JSON line, the
// bench prints every run's figures next to it, and the figures in docs/performance.md and the
// README are generated from it (test/unit/bench-record.test.ts holds them to it), never typed by hand.
// `npx tsx tools/bench/record.ts` rewrites those docs from the record.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const RECORD_FILE = `${ROOT}docs/bench-record.json`;
export const PERFORMANCE_DOC = `${ROOT}docs/performance.md`;
export const README = `${ROOT}README.md`;

export interface BenchRecord {
  /** When the run ended (ISO), and the arguments it was given. */
  readonly recordedAt: string;
  readonly args: readonly string[];
  /** The bench's JSON line (report.ts summary). */
  readonly summary: Record<string, unknown>;
}

export const readRecord = (file = RECORD_FILE): BenchRecord =>
  JSON.parse(readFileSync(file, 'utf8')) as BenchRecord;

/** The record, or undefined before the first `--record`. */
export function recordIfAny(file = RECORD_FILE): BenchRecord | undefined {
  return existsSync(file) ? readRecord(file) : undefined;
}

/** Which way is better for a figure: the change is judged by it. */
type Better = 'lower' | 'higher' | 'neither';
interface FigureDef {
  readonly name: string;
  readonly path: string;
  readonly better: Better;
  readonly digits: number;
}

/** The figures every run is compared on, by their path in the JSON line. */
const FIGURES: readonly FigureDef[] = [
  { name: 'Parquet bytes per million cost rows', path: 'bytesPerMillionRows', better: 'lower', digits: 0 },
  { name: 'peak RSS, MB (1 M rows)', path: 'peakRssMb', better: 'lower', digits: 0 },
  {
    name: 'peak RSS, MB (1 M-row reference of a 5 M run)',
    path: 'referencePeakRssMb',
    better: 'lower',
    digits: 0,
  },
  {
    name: 'share of the pages-in-flight bound',
    path: 'shareOfPagesInFlightBound',
    better: 'higher',
    digits: 3,
  },
  {
    name: 'share of the bound, half the units',
    path: 'shareOfPagesInFlightBoundFewerUnits',
    better: 'higher',
    digits: 3,
  },
  {
    name: 'half the units: a page asked to last byte, ms',
    path: 'pagesHeldBackFewerUnits.roundTripMs',
    better: 'lower',
    digits: 1,
  },
  {
    name: 'half the units: share of the time a page was out',
    path: 'pagesHeldBackFewerUnits.inFlight',
    better: 'higher',
    digits: 3,
  },
  {
    name: 'half the units: main-thread ms a page',
    path: 'pagesHeldBackFewerUnits.mainThreadMsPerPage',
    better: 'lower',
    digits: 1,
  },
  {
    name: 'half the units: main thread at the bound (share of it)',
    path: 'pagesHeldBackFewerUnits.mainThreadAtBound',
    better: 'lower',
    digits: 3,
  },
  {
    name: 'share of fetch + parse at the same latency',
    path: 'shareOfLimitAtLatency',
    better: 'higher',
    digits: 3,
  },
  { name: 'pipeline → S3, rows/s', path: 'pipelineRowsPerSec', better: 'higher', digits: 0 },
  { name: 'pipeline / limit, by wall', path: 'ratioToLimit', better: 'higher', digits: 3 },
  { name: 'pipeline / limit, by CPU', path: 'cpuRatioToLimit', better: 'higher', digits: 3 },
  { name: 'pipeline CPU µs a row', path: 'cpuUsPerRow.pipeline', better: 'lower', digits: 2 },
  { name: 'limit CPU µs a row', path: 'cpuUsPerRow.limit', better: 'lower', digits: 2 },
  {
    name: 'DuckDB best, bytes per million rows',
    path: 'bytesPerMillionRowsDuckdbBest',
    better: 'neither',
    digits: 0,
  },
  { name: 'inventory rows/s', path: 'inventory.rowsPerSec', better: 'higher', digits: 0 },
  { name: 'inventory peak RSS, MB', path: 'inventory.peakRssMb', better: 'lower', digits: 0 },
  {
    name: 'reading: Parquet objects of the year exported',
    path: 'reading.objects',
    better: 'neither',
    digits: 0,
  },
  {
    name: 'machine load average (1 min) at the end',
    path: 'machine.loadavg1m',
    better: 'neither',
    digits: 2,
  },
];

const at = (summary: Record<string, unknown>, path: string): number | undefined => {
  let value: unknown = summary;
  for (const key of path.split('.')) value = (value as Record<string, unknown> | undefined)?.[key];
  return typeof value === 'number' ? value : undefined;
};

const format = (n: number | undefined, digits: number) =>
  n === undefined
    ? '–'
    : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function change(now: number | undefined, was: number | undefined, better: Better): string {
  if (now === undefined || was === undefined || was === 0) return '–';
  const share = now / was - 1;
  const text = `${share >= 0 ? '+' : ''}${(share * 100).toFixed(1)} %`;
  if (better === 'neither' || Math.abs(share) < 0.005) return text;
  return `${text} (${(share < 0) === (better === 'lower') ? 'better' : 'worse'})`;
}

/** Each figure of this run next to the last recorded run's, and the change. */
export function againstRecord(record: BenchRecord | undefined, summary: Record<string, unknown>): string {
  if (!record)
    return 'no recorded run yet (docs/bench-record.json): run with --record to make this one the record';
  const rows = FIGURES.map((f) => [
    f.name,
    format(at(summary, f.path), f.digits),
    format(at(record.summary, f.path), f.digits),
    change(at(summary, f.path), at(record.summary, f.path), f.better),
  ]);
  const objects = objectsPerQuery(record.summary);
  const grown = Object.entries(objectsPerQuery(summary))
    .filter(([query, n]) => objects[query] !== undefined && n > objects[query]!)
    .map(([query, n]) => `${query} ${objects[query]} → ${n}`);
  return [
    `against the last recorded run (${record.recordedAt}, docs/bench-record.json):`,
    '',
    table([['figure', 'this run', 'recorded', 'change'], ...rows]),
    '',
    Object.keys(objectsPerQuery(summary)).length === 0
      ? 'reading: not measured in this run'
      : grown.length === 0
        ? 'reading: no saved query reads more objects than in the recorded run'
        : `reading: MORE OBJECTS than the recorded run: ${grown.join('; ')}`,
  ].join('\n');
}

/** Objects each saved query and view read at one year, by name. */
export function objectsPerQuery(summary: Record<string, unknown>): Record<string, number> {
  const queries = (summary.reading as { queries?: Record<string, { objects: number }> } | undefined)?.queries;
  return Object.fromEntries(Object.entries(queries ?? {}).map(([q, r]) => [q, r.objects]));
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(rows[0]!), line(widths.map((w) => '-'.repeat(w))), ...rows.slice(1).map(line)].join('\n');
}

const MIB = 1024 * 1024;

/** docs/performance.md's block: the headline figures of the record. */
export function recordBlock(record: BenchRecord): string {
  const s = record.summary;
  const figure = (path: string) => at(s, path);
  const machine = s.machine as Record<string, unknown> | undefined;
  const bytes = figure('bytesPerMillionRows');
  const rows = FIGURES.filter((f) => f.path !== 'machine.loadavg1m' && figure(f.path) !== undefined).map(
    (f) => [f.name, format(figure(f.path), f.digits)],
  );
  return [
    `The last recorded run: \`npm run bench -- ${record.args.join(' ')}\`, ended ${record.recordedAt},`,
    `${String(machine?.nproc ?? '?')} cores (${String(machine?.cpu ?? '?')}), Node ${String(machine?.node ?? '?')}, load average ${format(figure('machine.loadavg1m'), 2)} at its end.`,
    `Parquet per million cost rows: ${format(bytes === undefined ? undefined : bytes / 1e6, 1)} MB (${format(bytes === undefined ? undefined : bytes / MIB, 1)} MiB, the unit of the bench's tables).`,
    '',
    table([['figure', 'recorded'], ...rows]),
  ].join('\n');
}

/** The README's S3 line: MiB per million rows, as the bench's tables print it. */
export const readmeBytes = (record: BenchRecord): string =>
  `${format((at(record.summary, 'bytesPerMillionRows') ?? 0) / MIB, 1)} MB`;

const BLOCK = /(<!-- bench-record: start[^>]*-->\n)[\s\S]*?<!-- bench-record: end -->/;
const INLINE = /(<!-- bench-record: bytes -->)[^<]*(<!-- \/bench-record -->)/;

/** The doc with its generated parts as the record says. */
export function withRecord(doc: string, record: BenchRecord): string {
  return doc
    .replace(BLOCK, (_, open: string) => `${open}${recordBlock(record)}\n<!-- bench-record: end -->`)
    .replace(INLINE, (_, open: string, close: string) => `${open}${readmeBytes(record)}${close}`);
}

export function writeRecordDocs(record: BenchRecord): void {
  for (const file of [PERFORMANCE_DOC, README]) {
    writeFileSync(file, withRecord(readFileSync(file, 'utf8'), record));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeRecordDocs(readRecord());
