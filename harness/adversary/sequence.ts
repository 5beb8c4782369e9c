// One sequence of the adversary: a fresh world whose destination starts as a copy of one healthy
// export (made once per process), the commands in order with the invariants after each, then the
// healthy end: a --verify run, and a second one that must find nothing with every unit as
// Cloudforet has it (invariant c).
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { commandArbitraries, type Model } from './commands.ts';
import { InvariantViolation } from './invariants.ts';
import { Adversary, type Stats } from './model.ts';
import { cli } from './runs.ts';
import { startWorld, type World, type WorldOptions } from './world.ts';

/** Per flavour (a directory, S3): the healthy destination every world starts from. */
const templates = new Map<string, Promise<string>>();

/** The destination after `costs` and `costs --from <first day> --to <5 days on>`: both months compacted. */
async function healthyTemplate(opts: WorldOptions): Promise<string> {
  const world = await startWorld({ ...opts, ...(opts.s3 && { s3: {} }) });
  try {
    // s3rver is no S3: a GET racing a PUT of the same key may read it empty, so a template's run
    // that failed a unit is run again (the sequences judge runs by the invariants, not exit codes).
    for (const args of [['costs'], ['costs', '--from', world.days[0]!, '--to', world.days[5]!]]) {
      let code = 1;
      for (let attempt = 0; attempt < 3 && code !== 0; attempt++) code = (await cli(world, args)).code;
      if (code !== 0) throw new Error(`the template's runs failed: ${world.texts.join('\n')}`);
    }
    const dir = await mkdtemp(join(tmpdir(), 'adversary-template-'));
    await cp(world.s3?.dataDir ?? world.out, dir, { recursive: true, preserveTimestamps: true });
    return dir;
  } finally {
    await world.close();
  }
}

export async function dropTemplate(): Promise<void> {
  for (const t of templates.values()) await rm(await t, { recursive: true, force: true });
  templates.clear();
}

export async function runSequence(
  cmds: Iterable<fc.AsyncCommand<Model, Adversary>>,
  stats: Stats,
  opts: WorldOptions,
): Promise<void> {
  const flavour = opts.s3 ? 's3' : 'dir';
  if (!templates.has(flavour)) templates.set(flavour, healthyTemplate(opts));
  const from = await templates.get(flavour)!;
  const world: World = await startWorld({ ...opts, ...(opts.s3 && { s3: { template: from } }) });
  try {
    if (!world.s3) await cp(from, world.out, { recursive: true, preserveTimestamps: true });
    const adversary = new Adversary(world, stats);
    await adversary.afterRun(
      'the copied healthy export',
      { code: 1 },
      { followsJobs: false, verifies: false },
    );
    await fc.asyncModelRun(() => ({ model: {} as Model, real: adversary }), cmds);
    await healthyEnd(adversary);
  } finally {
    await world.close();
  }
}

async function healthyEnd(a: Adversary): Promise<void> {
  a.world.gateway.clear();
  // Healthy: no sync running any more (one still running leaves its data source for a later run).
  for (const ds of a.world.dataSources) a.world.sim.setJobInProgress(ds, false);
  const repair = await cli(a.world, ['costs', '--verify']);
  await a.afterRun('healthy end: cli costs --verify', repair, { followsJobs: true, verifies: true });
  const again = await cli(a.world, ['costs', '--verify']);
  await a.afterRun('healthy end: cli costs --verify (again)', again, { followsJobs: true, verifies: true });
  if (again.code !== 0) {
    const said = a.world.texts.at(-1) ?? '';
    throw new InvariantViolation(
      'healthy-not-clean',
      /compaction failed/.test(said) ? 'compaction-stuck' : 'verify-twice',
      `a second healthy --verify exited ${again.code}: ${said
        .split('\n')
        .filter((l) => /DAMAGED|FAILED|failed/.test(l))
        .slice(0, 5)
        .join(' | ')}`,
    );
  }
}

export interface PropertyOptions extends WorldOptions {
  readonly maxCommands: number;
  /** fast-check's replayPath of a printed counterexample (with its seed and path). */
  readonly replayPath?: string;
}

/** The replayPath fast-check prints in a counterexample's commands, if any. */
export function replayPathOf(counterexample: unknown): string | undefined {
  return /replayPath="([^"]+)"/.exec(String(counterexample))?.[1];
}

export function adversaryProperty(stats: Stats, opts: PropertyOptions) {
  return fc.asyncProperty(
    fc.commands(commandArbitraries({ s3: opts.s3 !== undefined }), {
      maxCommands: opts.maxCommands,
      ...(opts.replayPath && { replayPath: opts.replayPath }),
    }),
    (cmds) => runSequence(cmds, stats, opts),
  );
}
