// The Lanes state of tools/bench/plan-tenants.ts in a process of its own, as its Lambda runs it:
// reads <dir>/planned.json (every tenant's Plan output, the tenants and the caps), deals and writes
// the lanes into <dir> with the state's own code, and prints its time and peak RSS as JSON.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LaneCaps } from '../../functions/lib/costs/job/lanes.ts';
import { type PlannedTenant, writeLanes } from '../../functions/lib/costs/job/tenants-run.ts';
import { limitHeapGrowth } from '../../functions/lib/heap-growth.ts';
import { dirSink } from '../../functions/lib/storage/dir-sink.ts';

// What its Lambda entry sets when it loads (functions/lib/lambda/tenants-entry.ts).
limitHeapGrowth();
const dir = process.argv[2]!;
const input = JSON.parse(await readFile(join(dir, 'planned.json'), 'utf8')) as {
  planned: PlannedTenant[];
  connections: [string, { endpoint: string; secretId: string }][];
  caps: LaneCaps;
};
const started = performance.now();
const out = await writeLanes(
  { sink: dirSink(dir), bucket: 'bench', prefix: '', tenants: new Map(input.connections) },
  { runId: 'bench', planned: input.planned, caps: input.caps },
);
process.stdout.write(
  JSON.stringify({
    seconds: (performance.now() - started) / 1000,
    // maxRSS is in kilobytes: the process's peak, what Lambda's "Max Memory Used" reports.
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    lanesObjectKey: out.lanesObjectKey,
  }),
);
