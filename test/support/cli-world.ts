// The setup most CLI-driven system tests share: one simulator, a folder holding the domain app's
// file for it, and the CLI's main() run in process against both. `cliWorld` starts them,
// `world.cli('costs', out, '--from', …)` runs `cloudforet-export costs --endpoint <simulator>
// --secret-file <app> --out <out> …`, `world.close()` stops the simulator and removes the folder.
import { rm } from 'node:fs/promises';
import { main } from '../../cli/main.ts';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../harness/simulator/index.ts';
import { appFolder } from '../../harness/tokens.ts';
import { fakeIo } from './fake-io.ts';

/** What one CLI run did: its exit code, its output and errors, and its JSON summary under --json. */
export interface CliResult {
  readonly code: number;
  readonly out: string;
  readonly err: string;
  /** The parsed stdout when the run was given --json and printed something; else undefined. */
  // biome-ignore lint/suspicious/noExplicitAny: a summary's shape differs by command; tests read what they assert.
  readonly summary: any;
}

/** Where the CLI is pointed: a Cloudforet endpoint and an app file for it. */
export interface CliTarget {
  readonly url: string;
  readonly secretFile: string;
}

/** `cloudforet-export <command> --endpoint … --secret-file … --out <out> …extra`, in process. */
export async function runCli(
  target: CliTarget,
  command: string,
  out: string,
  ...extra: string[]
): Promise<CliResult> {
  const io = fakeIo();
  const argv = [
    command,
    '--endpoint',
    target.url,
    '--secret-file',
    target.secretFile,
    '--out',
    out,
    ...extra,
  ];
  const code = await main(argv, {}, io);
  const text = io.out();
  return {
    code,
    out: text,
    err: io.err(),
    summary: extra.includes('--json') && text ? JSON.parse(text) : undefined,
  };
}

export interface CliWorld extends CliTarget {
  readonly sim: Simulator;
  /** The temporary folder (app.json is in it; put destinations under it). */
  readonly dir: string;
  cli(command: string, out: string, ...extra: string[]): Promise<CliResult>;
  close(): Promise<void>;
}

/** Starts a simulator with `options` and a temporary folder (named from `prefix`) with its domain app. */
export async function cliWorld(prefix: string, options: SimulatorOptions): Promise<CliWorld> {
  const sim = await startSimulator(options);
  const { dir, secretFile } = await appFolder(prefix, sim.issueToken());
  const target = { url: sim.url, secretFile };
  return {
    ...target,
    sim,
    dir,
    cli: (command, out, ...extra) => runCli(target, command, out, ...extra),
    close: async () => {
      await sim.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
