// A run killed with SIGKILL: the CLI in a child process (bin/cloudforet-export.mjs), killed once
// `afterUnits` more unit versions are in the ledger than when it started (deterministic enough to
// replay: the kill lands after the same units), or never when it finishes first. Nothing of it
// runs its cleanup: temporaries, half-written uploads and the claim stay as a power cut leaves them.
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunOutcome } from './runs.ts';
import type { World } from './world.ts';

const BIN = fileURLToPath(new URL('../../bin/cloudforet-export.mjs', import.meta.url));

async function ledgerLines(out: string): Promise<number> {
  const files = await readdir(join(out, 'ledger', 'export_units'), { recursive: true }).catch(() => []);
  return files.filter((f) => String(f).endsWith('.json')).length;
}

export async function killedRun(world: World, afterUnits: number): Promise<RunOutcome & { killed: boolean }> {
  const before = await ledgerLines(world.out);
  const child = spawn(
    process.execPath,
    [
      BIN,
      'costs',
      '--concurrency',
      '1',
      ...['--endpoint', world.gateway.url, '--secret-file', world.secretFile, '--out', world.destination],
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'warn' } },
  );
  const chunks: string[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(c.toString()));
  child.stderr.on('data', (c: Buffer) => chunks.push(c.toString()));
  const exited = new Promise<number>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ? 137 : (code ?? 1))),
  );
  let killed = false;
  let done = false;
  void exited.then(() => {
    done = true;
  });
  while (!done) {
    if ((await ledgerLines(world.out)) >= before + afterUnits) {
      killed = child.kill('SIGKILL');
      break;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const code = await exited;
  world.texts.push(chunks.join(''));
  return { code: killed ? 137 : code, killed };
}
