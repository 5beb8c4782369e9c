// Planning at a provider's scale: T tenants x D data sources x N days (default 300 x 20 x 365, about
// 2.19 million units), each tenant planned as its scheduled run plans it (the pure plan, then its
// units written as the Map's item list, the tenant in every item), then every tenant's units dealt
// into the lanes of one run across tenants (functions/lib/costs/job/lanes.ts) as its Lanes state
// deals them, the tenants spread over E endpoints. Prints the time, the peak memory, the largest
// item list and lane, and the state transitions of that one run: per tenant its Plan, Finish and
// Summary (and the choice between them), per lane one invocation of the unit function (and its
// choice) for each stretch of a Lambda timeout's worth of units, taking U seconds a unit. The inputs
// are synthetic: every day has rows and nothing is published yet (a first backfill: every day is
// a unit), the plan's worst case.
// npx tsx tools/bench/plan-tenants.ts [--tenants 300] [--data-sources 20] [--days 365]
//   [--endpoints 3] [--overall 16] [--per-endpoint 8] [--per-tenant 2] [--unit-seconds 3] [--timeout 900]

import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { LANE_RESERVE_MS, type LaneItem } from '../../functions/lib/costs/job/lanes.ts';
import type { PlannedTenant } from '../../functions/lib/costs/job/tenants-run.ts';
import { planCostUnits } from '../../functions/lib/costs/planning/plan-units.ts';
import type { DataSourceInfo } from '../../functions/lib/costs/sources/data-sources.ts';
import type { DayStat } from '../../functions/lib/costs/sources/source-state.ts';
import { addDays } from '../../functions/lib/dates.ts';
import { dirSink } from '../../functions/lib/storage/dir-sink.ts';

const MB = 1024 * 1024;
const LANES_SCRIPT = fileURLToPath(new URL('./plan-lanes.ts', import.meta.url));
const { values } = parseArgs({
  options: {
    tenants: { type: 'string', default: '300' },
    'data-sources': { type: 'string', default: '20' },
    days: { type: 'string', default: '365' },
    endpoints: { type: 'string', default: '3' },
    overall: { type: 'string', default: '16' },
    'per-endpoint': { type: 'string', default: '8' },
    'per-tenant': { type: 'string', default: '2' },
    'unit-seconds': { type: 'string', default: '3' },
    timeout: { type: 'string', default: '900' },
  },
});
const caps = {
  overall: Number(values.overall),
  perEndpoint: Number(values['per-endpoint']),
  perTenant: Number(values['per-tenant']),
};
const unitSeconds = Number(values['unit-seconds']);
const timeoutSeconds = Number(values.timeout);
const tenants = Number(values.tenants);
const dataSourceCount = Number(values['data-sources']);
const days = Number(values.days);
const to = addDays(new Date().toISOString().slice(0, 10), -1);
const from = addDays(to, 1 - days);

let peakRss = process.memoryUsage().rss;
const sample = () => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
};
const timer = setInterval(sample, 20);

const started = performance.now();
let units = 0;
let largestItems = 0;
// The bucket stand-in: each tenant's item list written as its Plan writes it, read back by Lanes.
const dir = await mkdtemp(join(tmpdir(), 'bench-plan-'));
const sink = dirSink(dir);
const planned: PlannedTenant[] = [];
const connections = new Map<string, { endpoint: string; secretId: string }>();
for (let t = 0; t < tenants; t++) {
  const tenant = `tenant-${String(t).padStart(3, '0')}`;
  const plan = planCostUnits(tenantInput(t));
  // What writeUnitItems puts in S3 for the Map's ItemReader: one JSON list per execution.
  const items = JSON.stringify(plan.units.map((u) => ({ tenant, runId: `run-${t}`, ...u })));
  units += plan.units.length;
  largestItems = Math.max(largestItems, Buffer.byteLength(items));
  const unitsObjectKey = `tenants/${tenant}/units.json`;
  await sink.put(unitsObjectKey, items, 'application/json');
  planned.push({ tenant, unitsObjectKey, units: plan.units.length });
  connections.set(tenant, { endpoint: `https://endpoint-${t % Number(values.endpoints)}`, secretId: tenant });
  sample();
}
const seconds = (performance.now() - started) / 1000;
const planPeakRss = peakRss;
// The Lanes state is a Lambda invocation of its own: measured in a process of its own.
await writeFile(join(dir, 'planned.json'), JSON.stringify({ planned, connections: [...connections], caps }));
const lanesRun = JSON.parse(
  execFileSync(process.execPath, [...process.execArgv, LANES_SCRIPT, dir], { encoding: 'utf8' }),
) as { seconds: number; peakRssMb: number; lanesObjectKey: string };
const lanesSeconds = lanesRun.seconds;
const laneItems = JSON.parse((await sink.read(lanesRun.lanesObjectKey))!) as LaneItem[];
const lanes = laneItems.map((l) => ({ length: l.units }));
let largestLane = 0;
for (const l of laneItems) largestLane = Math.max(largestLane, (await sink.readBytes(l.laneKey))!.byteLength);
await rm(dir, { recursive: true, force: true });
// Units one invocation of a lane runs: a Lambda timeout's worth, less the time no unit starts in.
const perInvocation = Math.max(1, Math.floor((timeoutSeconds - LANE_RESERVE_MS / 1000) / unitSeconds));
const invocations = lanes.reduce((n, l) => n + Math.ceil(l.length / perInvocation), 0);
// Parent: PlanTenants' Plan, Lanes, AnyLanes, ExportUnits, Tenants' choice, Finish and Summary,
// TenantsSummary; each lane: per invocation RunLane and LaneDone, and LaneFinished at its end.
const transitions = tenants * 4 + 4 + invocations * 2 + lanes.length;
const longestHours = (Math.max(...lanes.map((l) => l.length)) * unitSeconds) / 3600;
clearInterval(timer);
sample();

process.stdout.write(
  `planned ${units.toLocaleString('en-US')} units (${tenants} tenants x ${dataSourceCount} data sources x ${days} days, ${from}..${to})\n` +
    `  ${seconds.toFixed(1)} s, peak RSS ${(planPeakRss / MB).toFixed(0)} MB\n` +
    `  one execution per tenant: ${(units / tenants).toLocaleString('en-US')} units, its item list ${(largestItems / MB).toFixed(1)} MB in S3 (one child execution per unit)\n` +
    `one run across tenants (caps ${caps.overall} overall, ${caps.perEndpoint} per endpoint, ${caps.perTenant} per tenant; ${values.endpoints} endpoints): ` +
    `${lanes.length} lanes dealt and written in ${lanesSeconds.toFixed(1)} s, peak RSS ${lanesRun.peakRssMb.toFixed(0)} MB, the largest lane ${(largestLane / MB).toFixed(1)} MB in S3\n` +
    `  at ${unitSeconds} s a unit and a ${timeoutSeconds} s timeout: ${perInvocation} units an invocation, ${invocations.toLocaleString('en-US')} invocations, ` +
    `about ${transitions.toLocaleString('en-US')} state transitions in all (per-unit items: about ${(units * 2).toLocaleString('en-US')}); ` +
    `its longest lane ${longestHours.toFixed(1)} h${longestHours > 24 ? ' (past the 24 h execution timeout: split such a backfill by months, docs/tenants.md)' : ''}\n`,
);

/** One tenant's plan input: its data sources, each with rows on every day and nothing published. */
function tenantInput(t: number) {
  const dataSources: DataSourceInfo[] = Array.from({ length: dataSourceCount }, (_, d) => ({
    id: `ds-${t}-${d}`,
    name: `data source ${d}`,
    provider: ['aws', 'azure', 'google_cloud'][d % 3],
    currency: 'USD',
    lastSynchronizedAt: `${to}T06:00:00Z`,
  }));
  const source = new Map<string, Map<string, DayStat>>();
  for (const ds of dataSources) {
    const byDay = new Map<string, DayStat>();
    for (let i = 0; i < days; i++)
      byDay.set(addDays(from, i), { rows: 100 + i, costSum: 12.5 * i, jobs: [`job-${ds.id}`] });
    source.set(ds.id, byDay);
  }
  return { from, to, dataSources, published: new Map(), source, syncing: new Set<string>(), force: false };
}
