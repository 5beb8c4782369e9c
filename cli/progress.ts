// Progress for long runs: a live line on a terminal, a line every few seconds otherwise.
import type { RunProgress } from '../functions/lib/faces/face.ts';

export function progressReporter(
  stream: NodeJS.WriteStream,
  label: string,
  intervalMs = 5_000,
): { update(p: RunProgress): void; done(): void } {
  let lastLine = 0;
  let shown = false;
  return {
    update(p) {
      const rate = p.elapsedMs > 0 ? Math.round((p.rows / p.elapsedMs) * 1000) : 0;
      const units = `${label}: ${p.unitsDone}/${p.unitsTotal} units, ${p.rows.toLocaleString('en-US')} rows`;
      // After the units: say what is being done now, not a rate that no longer moves.
      const text = p.phase
        ? `${units}; now the ${p.phase}`
        : `${units}, ${rate.toLocaleString('en-US')} rows/s`;
      if (stream.isTTY) {
        stream.write(`\r\x1b[2K${text}`);
        shown = true;
      } else if (Date.now() - lastLine >= intervalMs || p.unitsDone === p.unitsTotal || p.phase) {
        stream.write(`${text}\n`);
        lastLine = Date.now();
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
