// Runs a command as its own process with stdout and stderr on pipes (as `cmd | tee log` does) and
// records when each line arrives, so a test can measure the longest silence a user would see.
import { spawn } from 'node:child_process';

export interface TimedLine {
  /** Seconds since the process was started. */
  readonly at: number;
  readonly stream: 'out' | 'err';
  readonly text: string;
}

export interface TimedRun {
  readonly code: number | null;
  readonly lines: readonly TimedLine[];
  /** Seconds from start to exit (or to the stop the caller asked for). */
  readonly seconds: number;
  /** Every chunk of both streams, as written: a redraw ('\r') would show here. */
  readonly raw: string;
  /** The longest silence: start to first line, line to line, last line to exit. */
  readonly longestGap: { readonly seconds: number; readonly after: string };
}

export interface TimedOptions {
  readonly cwd?: string | URL;
  readonly env?: NodeJS.ProcessEnv;
  /** Killed after this long whatever it printed (a hang fails the gap check instead of the test run). */
  readonly killAfterMs?: number;
}

/** A command run to its end. */
export function runTimed(
  command: string,
  args: readonly string[],
  opts: TimedOptions = {},
): Promise<TimedRun> {
  return startTimed(command, args, opts).done;
}

/**
 * A server that runs until Ctrl-C: `ready` once a line matches `until` (the lines so far), `stop`
 * sends SIGINT to its process group as a terminal does; its silence is measured up to `ready`.
 */
export function startServerTimed(
  command: string,
  args: readonly string[],
  until: RegExp,
  opts: TimedOptions = {},
): { ready: Promise<readonly TimedLine[]>; stop(): Promise<TimedRun> } {
  const started = startTimed(command, args, { ...opts, until });
  return {
    ready: started.ready,
    stop: () => {
      started.stop();
      return started.done;
    },
  };
}

function startTimed(
  command: string,
  args: readonly string[],
  opts: TimedOptions & { until?: RegExp },
): { done: Promise<TimedRun>; ready: Promise<readonly TimedLine[]>; stop(): void } {
  const started = performance.now();
  const since = () => (performance.now() - started) / 1000;
  const child = spawn(command, args, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const lines: TimedLine[] = [];
  const raw: string[] = [];
  let stoppedAt: number | undefined;
  let readyAt: number | undefined;
  let markReady: (lines: readonly TimedLine[]) => void = () => {};
  const ready = new Promise<readonly TimedLine[]>((resolve) => {
    markReady = resolve;
  });
  const group = (signal: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const read = (stream: NodeJS.ReadableStream, name: 'out' | 'err') => {
    let pending = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const at = since();
      raw.push(chunk);
      pending += chunk;
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      for (const text of parts) {
        lines.push({ at, stream: name, text });
        if (readyAt === undefined && opts.until?.test(text)) {
          readyAt = at;
          markReady([...lines]);
        }
      }
    });
    stream.on('end', () => {
      if (pending !== '') lines.push({ at: since(), stream: name, text: pending });
    });
  };
  read(child.stdout, 'out');
  read(child.stderr, 'err');
  const killer = setTimeout(() => group('SIGKILL'), opts.killAfterMs ?? 60_000);
  const done = new Promise<TimedRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(killer);
      markReady([...lines]);
      // A server is measured up to the line saying it is ready: then it idles by design.
      const end = readyAt ?? stoppedAt ?? since();
      lines.sort((a, b) => a.at - b.at);
      resolve({ code, lines, seconds: end, raw: raw.join(''), longestGap: longestGap(lines, end) });
    });
  });
  return {
    done,
    ready,
    stop: () => {
      stoppedAt = since();
      group('SIGINT');
    },
  };
}

function longestGap(lines: readonly TimedLine[], end: number): { seconds: number; after: string } {
  let longest = { seconds: 0, after: '(the start)' };
  let last = { at: 0, text: '(the start)' };
  for (const line of [...lines.filter((l) => l.at <= end), { at: end, text: '(the end)' }]) {
    if (line.at - last.at > longest.seconds) longest = { seconds: line.at - last.at, after: last.text };
    last = line;
  }
  return { seconds: Math.round(longest.seconds * 100) / 100, after: longest.after };
}

/** The lines as `  12.3 s err| text`, for a failure message that shows where the silence was. */
export function transcript(run: TimedRun): string {
  return run.lines.map((l) => `${l.at.toFixed(1).padStart(6)} s ${l.stream}| ${l.text}`).join('\n');
}
