// npm run soak -- --adversary [--minutes N] [--max-commands K] [--seed S]: the adversary
// (harness/adversary/) on random seeds until N minutes pass. Per sequence it prints the seed and
// the outcome (a failure shrunk, with its replayable command list); at the end the commands run by
// kind, the faults injected, the kills, the invariant checks passed and the rows compared.
import fc from 'fast-check';
import { InvariantViolation } from '../harness/adversary/invariants.ts';
import { newStats } from '../harness/adversary/model.ts';
import { adversaryProperty, dropTemplate, replayPathOf } from '../harness/adversary/sequence.ts';

export interface AdversarySoakOptions {
  readonly minutes: number;
  readonly maxCommands: number;
  readonly seed?: number;
  /** With seed: replay the shrunk counterexample fast-check printed (its `path`). */
  readonly path?: string;
  /** With path: the counterexample's replayPath (printed in its commands). */
  readonly replayPath?: string;
}

/** A sequence takes seconds to a few minutes: one past this is taken as hung. */
const HANG_MINUTES = Number(process.env.ADVERSARY_HANG_MINUTES ?? 8);

export async function adversarySoak(opts: AdversarySoakOptions): Promise<number> {
  const stats = newStats();
  const started = Date.now();
  const until = started + opts.minutes * 60_000;
  const findings: string[] = [];
  let sequences = 0;
  const property = adversaryProperty(stats, {
    maxCommands: opts.maxCommands,
    workspaces: Number(process.env.ADVERSARY_WORKSPACES ?? 16),
    rowsPerDay: Number(process.env.ADVERSARY_ROWS_PER_DAY ?? 60),
    // ADVERSARY_S3=1: the destination on s3rver, the cost function's handler among the commands.
    ...(process.env.ADVERSARY_S3 === '1' && { s3: {} }),
    ...(opts.replayPath && { replayPath: opts.replayPath }),
  });
  try {
    do {
      const seed = opts.seed ?? (Math.random() * 2 ** 31) | 0;
      const t = Date.now();
      // A sequence that never ends is a finding too: its seed said before it starts, and again,
      // with what keeps the process waiting, when it has run past the watchdog.
      console.log(`adversary: seed ${seed}: start`);
      const watchdog = setTimeout(() => {
        console.log(
          `adversary: seed ${seed}: FOUND hang: still running after ${HANG_MINUTES} minutes, waiting on ${JSON.stringify(process.getActiveResourcesInfo())}`,
        );
        console.log(
          `  replay: npm run soak -- --adversary --seed ${seed} --max-commands ${opts.maxCommands}`,
        );
        process.exit(3);
      }, HANG_MINUTES * 60_000);
      const result = await fc
        .check(property, {
          seed,
          numRuns: 1,
          ...(opts.path && { path: opts.path, endOnFailure: true }),
        })
        .finally(() => clearTimeout(watchdog));
      sequences++;
      const took = ((Date.now() - t) / 1000).toFixed(1);
      if (!result.failed) {
        console.log(`adversary: seed ${seed}: ok (${took} s)`);
      } else {
        const error = result.errorInstance;
        const name = error instanceof InvariantViolation ? error.signature : String(error).slice(0, 200);
        findings.push(`seed ${seed}: ${name}`);
        console.log(`adversary: seed ${seed}: FOUND ${name} (${took} s)`);
        console.log(`  ${String((error as Error)?.message ?? error)}`);
        console.log(fc.defaultReportMessage(result));
        const replayPath = replayPathOf(result.counterexample?.[0]);
        console.log(
          `  replay: npm run soak -- --adversary --seed ${seed} --max-commands ${opts.maxCommands} --path ${result.counterexamplePath}` +
            (replayPath ? ` --replay-path ${replayPath}` : ''),
        );
      }
    } while (opts.seed === undefined && Date.now() < until);
  } finally {
    await dropTemplate();
  }
  const report = {
    sequences,
    seconds: Math.round((Date.now() - started) / 1000),
    commandsByKind: stats.commands,
    faultsArmed: stats.faults,
    damages: stats.damages,
    kills: stats.kills,
    invariantChecksPassed: stats.checks,
    rowsCompared: stats.rowsCompared,
    runsFailedLoudly: stats.runsFailedLoudly,
    findings,
  };
  console.log(JSON.stringify(report, null, 2));
  return findings.length === 0 ? 0 : 1;
}
