import { spawn } from 'node:child_process';
import { startSimulator } from './harness/simulator/index.ts';
import { appFolder } from './harness/tokens.ts';
import { addDays, utcDay } from './functions/lib/dates.ts';
const y = addDays(utcDay(new Date()), -1);
const sim = await startSimulator({ seed: 5, dataSources: 1, from: addDays(y, -3), to: y, rowsPerDay: 3000 });
const { dir, secretFile } = await appFolder('p3', sim.issueToken());
for (const args of [['costs', '--from', addDays(y, -1), '--to', y], ['inventory']]) {
  const t = performance.now();
  const child = spawn(process.execPath, ['bin/cloudforet-export.mjs', ...args, '--endpoint', sim.url, '--secret-file', secretFile, '--out', `${dir}/out`], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr.on('data', (c) => { for (const l of String(c).split('\n').filter(Boolean)) console.log(((performance.now()-t)/1000).toFixed(2), 'ERR', l.slice(0, 200)); });
  child.stdout.on('data', (c) => { for (const l of String(c).split('\n').filter(Boolean)) console.log(((performance.now()-t)/1000).toFixed(2), 'OUT', l.slice(0, 200)); });
  await new Promise((r) => child.once('exit', r));
}
const paths = new Map<string, number>(); for (const r of sim.requests) paths.set(r.path, (paths.get(r.path) ?? 0) + 1);
console.log([...paths]);
await sim.close();
