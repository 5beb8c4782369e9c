import { writeFileSync } from 'node:fs';
import { main } from '../cli/main.ts';
import { startSimulator } from '../harness/simulator/index.ts';
import { consoleAppJson } from '../harness/tokens.ts';
import { addDays, utcDay } from '../functions/lib/dates.ts';
const to = addDays(utcDay(new Date()), -1);
const sim = await startSimulator({ seed: 61, dataSources: 3, from: addDays(to, -30), to, rowsPerDay: 50 });
writeFileSync('/tmp/fh/sim-app.json', consoleAppJson(sim.issueToken()));
const exit = await main(
  [
    process.argv[2]!,
    '--endpoint',
    sim.url,
    '--secret-file',
    '/tmp/fh/sim-app.json',
    '--out',
    '/tmp/fh/out-' + process.argv[2],
    ...process.argv.slice(3),
  ],
  {},
);
console.error('exit', exit);
await sim.close();
