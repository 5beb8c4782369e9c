// Planning at a provider's scale: T tenants x D data sources x N days (default 300 x 20 x 365, about
// 2.19 million units), each tenant planned as its scheduled run plans it (the pure plan, then its
// units written as the Map's item list, the tenant in every item). Prints the time, the peak memory
// and the largest item list one execution reads. The inputs are synthetic: every day has rows and
// nothing is published yet (a first backfill: every day is a unit), the plan's worst case.
// npx tsx tools/bench/plan-tenants.ts [--tenants 300] [--data-sources 20] [--days 365]
import { parseArgs } from 'node:util';
import { addDays } from '../../functions/lib/dates.ts';
import { planCostUnits } from '../../functions/lib/costs/planning/plan-units.ts';
import type { DataSourceInfo } from '../../functions/lib/costs/sources/data-sources.ts';
import type { DayStat } from '../../functions/lib/costs/sources/source-state.ts';

const MB = 1024 * 1024;
const { values } = parseArgs({
  options: {
    tenants: { type: 'string', default: '300' },
    'data-sources': { type: 'string', default: '20' },
    days: { type: 'string', default: '365' },
  },
});
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
for (let t = 0; t < tenants; t++) {
  const tenant = `tenant-${String(t).padStart(3, '0')}`;
  const plan = planCostUnits(tenantInput(t));
  // What writeUnitItems puts in S3 for the Map's ItemReader: one JSON list per execution.
  const items = JSON.stringify(plan.units.map((u) => ({ tenant, runId: `run-${t}`, ...u })));
  units += plan.units.length;
  largestItems = Math.max(largestItems, Buffer.byteLength(items));
  sample();
}
const seconds = (performance.now() - started) / 1000;
clearInterval(timer);
sample();

process.stdout.write(
  `planned ${units.toLocaleString('en-US')} units (${tenants} tenants x ${dataSourceCount} data sources x ${days} days, ${from}..${to})\n` +
    `  ${seconds.toFixed(1)} s, peak RSS ${(peakRss / MB).toFixed(0)} MB\n` +
    `  one execution per tenant: ${(units / tenants).toLocaleString('en-US')} units, its item list ${(largestItems / MB).toFixed(1)} MB in S3 (one child execution per unit)\n`,
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
