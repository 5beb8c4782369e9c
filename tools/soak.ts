// npm run soak [-- --runs N --seed S --fault-rate R] (or -- --adversary --minutes N, tools/adversary-soak.ts): many seeded cost runs against the simulator
// with a fault on ~R of all requests, re-syncs between and during runs, and runs killed halfway
// (aborted at a random request, as SIGTERM does). Every unit a run exported must hold exactly one
// version of its day that existed during the run (no lost, duplicated or foreign rows); a unit
// that failed must have left its files byte for byte. At the end a clean run, then the whole-
// destination verifier (destination/verify-destination.ts) must find nothing, and every FOCUS unit
// must hold exactly its costs object's rows. Exits 1 when any of that fails.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, type Dispatcher } from 'undici';
import { CloudforetClient } from '../functions/lib/cloudforet/client.ts';
import { type CostRunSummary, runCostExport } from '../functions/lib/costs/run.ts';
import { costManifestKey, costObjectKey } from '../functions/lib/costs/sources/day-keys.ts';
import { addDays, daysBetween } from '../functions/lib/dates.ts';
import { verifyDestination } from '../functions/lib/destination/verify-destination.ts';
import { errorCode } from '../functions/lib/errors.ts';
import { focusObjectKey } from '../functions/lib/focus/derive.ts';
import { dirSink } from '../functions/lib/storage/dir-sink.ts';
import { readWithArrow } from '../harness/parquet-readers.ts';
import { type FaultKind, startSimulator } from '../harness/simulator/index.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string' },
    seed: { type: 'string' },
    'fault-rate': { type: 'string' },
    adversary: { type: 'boolean' },
    minutes: { type: 'string' },
    'max-commands': { type: 'string' },
    path: { type: 'string' },
    'replay-path': { type: 'string' },
  },
});
if (values.adversary) {
  // The model-based adversary (harness/adversary/) instead of the fault-rate soak below.
  const { adversarySoak } = await import('./adversary-soak.ts');
  process.exit(
    await adversarySoak({
      minutes: Number(values.minutes ?? 10),
      maxCommands: Number(values['max-commands'] ?? 10),
      ...(values.seed !== undefined && { seed: Number(values.seed) }),
      ...(values.path !== undefined && { path: values.path }),
      ...(values['replay-path'] !== undefined && { replayPath: values['replay-path'] }),
    }),
  );
}
const RUNS = Number(values.runs ?? 120);
const SEED = Number(values.seed ?? 7);
const FAULT_RATE = Number(values['fault-rate'] ?? 0.05);
const FIRST = '2026-09-01';
const DAYS = 14;
/** Weights of the fault kinds; 401 is the one that must fail a unit loudly. */
const KINDS: Array<[FaultKind, number]> = [
  ['503', 3],
  ['500', 3],
  ['504', 2],
  ['reset', 3],
  ['slow', 1],
  ['badjson', 2],
  ['truncated', 2],
  ['empty', 2],
  ['429', 1],
  ['401', 1],
];

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
// Two streams, so the runs and re-syncs drawn do not depend on how many faults were drawn.
const random = mulberry32(SEED);
const faultRandom = mulberry32(SEED ^ 0x5eed);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const pickKind = (): FaultKind => {
  let r = faultRandom() * KINDS.reduce((n, [, w]) => n + w, 0);
  for (const [kind, w] of KINDS) {
    r -= w;
    if (r < 0) return kind;
  }
  return '503';
};

const sim = await startSimulator({
  seed: SEED,
  dataSources: 3,
  from: FIRST,
  to: addDays(FIRST, DAYS - 1),
  rowsPerDay: 2_500,
});
const token = sim.issueToken();
const dataSources = sim.dataSourceIds();
const out = await mkdtemp(join(tmpdir(), 'soak-'));

// Requests are counted as they leave the client; a scheduled re-sync fires at a given count.
let requests = 0;
let resyncAt: { at: number; run: () => void } | undefined;
let killAt: { at: number; run: AbortController } | undefined;
const dispatcher: Dispatcher = new Agent({ connections: 16 }).compose((dispatch) => (opts, handler) => {
  requests++;
  if (killAt && requests >= killAt.at) {
    killAt.run.abort();
    killAt = undefined;
  }
  if (resyncAt && requests >= resyncAt.at) {
    resyncAt.run();
    resyncAt = undefined;
  }
  return dispatch(opts, handler);
});

// Faults: a queue where each fault lets a geometric number of requests through, so every
// request is faulted with probability FAULT_RATE. fireAt[i] is the request number fault i hits.
const fireAt: Array<{ at: number; kind: FaultKind }> = [];
function topUpFaults(until: number): void {
  let at = fireAt.at(-1)?.at ?? 0;
  while (at < until) {
    const skip = Math.floor(Math.log(1 - faultRandom()) / Math.log(1 - FAULT_RATE));
    at += skip + 1;
    const kind = pickKind();
    sim.injectFault({ kind, afterRequests: skip, delayMs: 1_500 });
    fireAt.push({ at, kind });
  }
}

// Every version of a day seen during the current run: what an exported unit may hold.
const versions = new Map<string, Array<string[]>>();
const keyOf = (ds: string, date: string) => `${ds}|${date}`;
const recordVersion = (ds: string, date: string) =>
  versions.get(keyOf(ds, date))?.push(
    sim
      .costRows(ds, date)
      .map((r) => String(r.cost_id))
      .sort(),
  );
function resync(ds: string, date: string, during: boolean): void {
  const change = pick([
    {},
    { rowDelta: Math.round(random() * 60) - 30 },
    { costFactor: pick([0.9, 1.1, 1.25]) },
  ]);
  sim.resync(ds, date, change);
  if (during) recordVersion(ds, date);
  totals.resyncs[during ? 'during' : 'between']++;
}

const totals = {
  runs: 0,
  runsFailed: 0,
  unitsExported: 0,
  unitsFailed: 0,
  unitsStale: 0,
  rows: 0,
  unitRetries: 0,
  requestRetries: 0,
  lost: 0,
  duplicated: 0,
  foreign: 0,
  touched: 0,
  killed: 0,
  resyncs: { between: 0, during: 0 },
  failureCodes: {} as Record<string, number>,
};

async function snapshot(keys: string[]): Promise<Map<string, Buffer | undefined>> {
  const files = new Map<string, Buffer | undefined>();
  for (const key of keys) files.set(key, await readFile(join(out, key)).catch(() => undefined));
  return files;
}
const same = (a: Buffer | undefined, b: Buffer | undefined) => (a && b ? a.equals(b) : a === b);

async function verifyExported(ds: string, date: string): Promise<void> {
  const seen = versions.get(keyOf(ds, date))!;
  const bytes = await readFile(join(out, costObjectKey(ds, date))).catch(() => undefined);
  const ids = bytes
    ? readWithArrow(new Uint8Array(bytes))
        .rows.map((r) => String(r.cost_id))
        .sort()
    : [];
  const unique = new Set(ids);
  totals.duplicated += ids.length - unique.size;
  let best = { lost: Number.POSITIVE_INFINITY, foreign: 0, index: 0 };
  seen.forEach((version, index) => {
    const lost = version.filter((id) => !unique.has(id)).length;
    const foreign = unique.size - (version.length - lost);
    if (lost + foreign < best.lost + best.foreign) best = { lost, foreign, index };
  });
  totals.lost += best.lost;
  totals.foreign += best.foreign;
  if (best.index < seen.length - 1) totals.unitsStale++;
  totals.unitsExported++;
  totals.rows += ids.length;
}

async function soakRun(n: number): Promise<void> {
  const from = addDays(FIRST, Math.floor(random() * DAYS));
  const to = [addDays(from, Math.floor(random() * 4)), addDays(FIRST, DAYS - 1)].sort()[0]!;
  const units = dataSources.flatMap((ds) => daysBetween(from, to).map((date) => ({ ds, date })));
  if (random() < 0.5)
    for (let i = 0; i < 1 + Math.floor(random() * 2); i++)
      resync(pick(dataSources), addDays(FIRST, Math.floor(random() * DAYS)), false);
  versions.clear();
  for (const { ds, date } of units) {
    versions.set(keyOf(ds, date), []);
    recordVersion(ds, date);
  }
  if (random() < 0.4) {
    const target = pick(units);
    resyncAt = {
      at: requests + 1 + Math.floor(random() * 4 * units.length),
      run: () => resync(target.ds, target.date, true),
    };
  }
  topUpFaults(requests + 2_000);
  sim.resetRequestLog();
  const files = units.flatMap(({ ds, date }) => [costObjectKey(ds, date), costManifestKey(ds, date)]);
  const before = await snapshot(files);
  const client = new CloudforetClient({
    endpoint: sim.url,
    token,
    dispatcher,
    headersTimeoutMs: 1_000,
    bodyTimeoutMs: 1_000,
    sleep: async () => {},
  });
  const force = random() < 0.3;
  const kill = random() < 0.15 ? new AbortController() : undefined;
  if (kill) {
    killAt = { at: requests + 1 + Math.floor(random() * 3 * units.length), run: kill };
    totals.killed++;
  }
  const summary = await runCostExport(
    { client, sink: dirSink(out), concurrency: 3, runId: `soak-${n}`, signal: kill?.signal },
    { from, to, force },
  ).catch((error: unknown) => errorCode(error));
  resyncAt = undefined;
  killAt = undefined;
  totals.runs++;
  if (typeof summary === 'string') {
    totals.runsFailed++;
    totals.failureCodes[`run:${summary}`] = (totals.failureCodes[`run:${summary}`] ?? 0) + 1;
    const after = await snapshot(files);
    for (const key of files) if (!same(before.get(key), after.get(key))) totals.touched++;
    return;
  }
  await verifyRun(summary, units, before);
}

async function verifyRun(
  summary: CostRunSummary,
  units: Array<{ ds: string; date: string }>,
  before: Map<string, Buffer | undefined>,
): Promise<void> {
  totals.unitRetries += summary.unitRetries;
  totals.requestRetries += summary.requestRetries;
  for (const f of summary.failures) totals.failureCodes[f.code] = (totals.failureCodes[f.code] ?? 0) + 1;
  for (const { ds, date } of units) {
    const keys = [costObjectKey(ds, date), costManifestKey(ds, date)];
    if (summary.failures.some((f) => f.dataSourceId === ds && f.date === date)) {
      totals.unitsFailed++;
      const after = await snapshot(keys);
      for (const key of keys) if (!same(before.get(key), after.get(key))) totals.touched++;
      continue;
    }
    const manifest = JSON.parse(
      (await readFile(join(out, keys[1]!), 'utf8').catch(() => 'null')) as string,
    ) as { runId?: string } | null;
    if (manifest?.runId === summary.runId) await verifyExported(ds, date);
  }
}

/**
 * After the last run: a clean run over the whole range (no fault, no kill), then the verifier
 * over the whole destination and every FOCUS unit against its costs object, row for row.
 */
async function finalCheck(): Promise<{ findings: number; focusUnitsDiffering: number }> {
  sim.clearFaults();
  const sink = dirSink(out);
  const client = new CloudforetClient({ endpoint: sim.url, token, dispatcher: new Agent() });
  await runCostExport(
    { client, sink, concurrency: 3, runId: 'soak-final' },
    { from: FIRST, to: addDays(FIRST, DAYS - 1) },
  );
  const report = await verifyDestination(sink, { checksums: true });
  for (const f of report.findings) console.log(`soak: DAMAGED ${f.key}: ${f.why}`);
  let focusUnitsDiffering = 0;
  for (const ds of dataSources)
    for (const date of daysBetween(FIRST, addDays(FIRST, DAYS - 1))) {
      const ids = async (key: string, column: string) => {
        const bytes = await readFile(join(out, key)).catch(() => undefined);
        return bytes
          ? readWithArrow(new Uint8Array(bytes))
              .rows.map((r) => String(r[column]))
              .sort()
          : [];
      };
      const [costs, focus] = await Promise.all([
        ids(costObjectKey(ds, date), 'cost_id'),
        ids(focusObjectKey(ds, date), 'x_cost_id'),
      ]);
      if (costs.join() !== focus.join()) focusUnitsDiffering++;
    }
  return { findings: report.findings.length, focusUnitsDiffering };
}

const started = Date.now();
let final = { findings: 0, focusUnitsDiffering: 0 };
try {
  for (let n = 1; n <= RUNS; n++) {
    await soakRun(n);
    if (n % 20 === 0)
      console.log(
        `soak: ${n}/${RUNS} runs, ${totals.unitsExported} units, ${requests} requests, ${((Date.now() - started) / 1000).toFixed(0)} s`,
      );
  }
  final = await finalCheck();
} finally {
  await sim.close();
  await rm(out, { recursive: true, force: true });
}
const injected = fireAt.filter((f) => f.at <= requests);
const byKind: Record<string, number> = {};
for (const f of injected) byKind[f.kind] = (byKind[f.kind] ?? 0) + 1;
const report = {
  seed: SEED,
  runs: totals.runs,
  runsFailedLoudly: totals.runsFailed,
  unitsExported: totals.unitsExported,
  unitsFailedLoudly: totals.unitsFailed,
  unitsHoldingAnEarlierVersionOfTheRun: totals.unitsStale,
  rowsPublished: totals.rows,
  requests,
  faultsInjected: injected.length,
  faultRate: Number((injected.length / Math.max(1, requests)).toFixed(4)),
  faultsByKind: byKind,
  resyncs: totals.resyncs,
  retries: { request: totals.requestRetries, unit: totals.unitRetries },
  failureCodes: totals.failureCodes,
  lostRows: totals.lost,
  duplicatedRows: totals.duplicated,
  foreignRows: totals.foreign,
  failedUnitsWhoseFilesChanged: totals.touched,
  runsKilledHalfway: totals.killed,
  verifierFindingsAtTheEnd: final.findings,
  focusUnitsDifferingFromTheirCostsAtTheEnd: final.focusUnitsDiffering,
  seconds: Math.round((Date.now() - started) / 1000),
};
console.log(JSON.stringify(report, null, 2));
const broken =
  totals.lost +
  totals.duplicated +
  totals.foreign +
  totals.touched +
  final.findings +
  final.focusUnitsDiffering;
console.log(
  broken === 0 ? 'soak: OK, no row lost or duplicated' : `soak: FAILED, ${broken} bad rows or files`,
);
process.exit(broken === 0 ? 0 : 1);
