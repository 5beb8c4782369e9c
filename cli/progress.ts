// Progress for long runs: a live line on a terminal; on a pipe or a file, one line per step (each
// tenth of the units, each phase after them) and one at least every few seconds in between.
import type { SecretSource } from '../functions/lib/faces/edge.ts';
import type { CloudforetSession, RunProgress } from '../functions/lib/faces/face.ts';

export function progressReporter(
  stream: NodeJS.WriteStream,
  label: string,
  intervalMs = 5_000,
): { update(p: RunProgress): void; done(): void } {
  let lastLine = 0;
  let lastTenth = -1;
  let lastPhase: string | undefined;
  let shown = false;
  return {
    update(p) {
      const rate = p.elapsedMs > 0 ? Math.round((p.rows / p.elapsedMs) * 1000) : 0;
      const done = `${label}: ${p.unitsDone}/${p.unitsTotal} ${p.noun ?? 'units'}`;
      const units = `${done}, ${p.amount ?? `${p.rows.toLocaleString('en-US')} rows`}`;
      // After the units: say what is being done now, not a rate that no longer moves.
      const text = p.phase
        ? `${units}; now the ${p.phase}`
        : p.amount !== undefined
          ? units
          : `${units}, ${rate.toLocaleString('en-US')} rows/s`;
      if (stream.isTTY) {
        stream.write(`\r\x1b[2K${text}`);
        shown = true;
        return;
      }
      const tenth = p.unitsTotal > 0 ? Math.floor((p.unitsDone * 10) / p.unitsTotal) : 10;
      const step = p.phase ? p.phase !== lastPhase : tenth > lastTenth;
      if (step || Date.now() - lastLine >= intervalMs) {
        stream.write(`${text}\n`);
        lastLine = Date.now();
        lastTenth = Math.max(lastTenth, tenth);
        lastPhase = p.phase;
      }
    },
    done() {
      if (shown) stream.write('\n');
    },
  };
}

/** Said before any work, so nobody has to guess whether the data went to S3 or to a folder. */
export function announceDestination(stream: NodeJS.WriteStream, label: string, location: string): void {
  const kind = location.startsWith('s3://') ? 'Amazon S3' : 'local directory';
  stream.write(`${label}: writing to ${location} (${kind})\n`);
}

/**
 * A line every 5 s while the run waits on an endpoint that answers nothing (before it gives up),
 * so a silent endpoint is never a silent run. Returns the function that stops the watch.
 */
export function watchSilence(
  stream: NodeJS.WriteStream,
  label: string,
  session: CloudforetSession | undefined,
  everyMs = 5_000,
): () => void {
  if (!session) return () => {};
  const { client } = session;
  const limit = client.silence
    ? `gives up after ${Math.round(client.silence.budgetMs / 1000)} s of silence; --give-up-after`
    : `each request waits ${Math.round(client.requestTimeoutMs / 1000)} s at most; --timeout`;
  let said = 0;
  const timer = setInterval(() => {
    const waited = client.waiting.waitingMs();
    const step = Math.floor(waited / everyMs);
    if (step === 0) said = 0;
    if (step <= said) return;
    said = step;
    stream.write(
      `${label}: waiting for ${client.endpoint}: no answer for ${Math.round(waited / 1000)} s (${limit})\n`,
    );
  }, 100);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * A line every 5 s while the secret is being read (Secrets Manager that answers nothing, a slow
 * network path to it), so the wait before the first request is never a silent one either.
 */
export function watchSecretLoad(
  stream: NodeJS.WriteStream,
  label: string,
  source: SecretSource,
  says: { readonly what: string; readonly limit: string },
  everyMs = 5_000,
): SecretSource {
  return {
    load() {
      const started = Date.now();
      const timer = setInterval(() => {
        const waited = Math.round((Date.now() - started) / 1000);
        stream.write(`${label}: reading the ${says.what}: no answer for ${waited} s (${says.limit})\n`);
      }, everyMs);
      timer.unref();
      return source.load().finally(() => clearInterval(timer));
    },
  };
}
