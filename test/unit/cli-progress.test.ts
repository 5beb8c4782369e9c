// Progress on a pipe or a file: one line per step (each tenth of the units, each phase after them),
// never a redraw, and never the same step twice.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { progressReporter, watchSilence } from '../../cli/progress.ts';
import { SilenceBudget } from '../../functions/lib/cloudforet/silence.ts';
import type { CloudforetSession } from '../../functions/lib/faces/face.ts';

function pipe(): { stream: NodeJS.WriteStream; lines(): string[] } {
  let text = '';
  const write = (chunk: string): boolean => {
    text += chunk;
    return true;
  };
  const stream = { isTTY: false, write };
  return { stream: stream as unknown as NodeJS.WriteStream, lines: () => text.split('\n').filter(Boolean) };
}

describe('progress on a pipe', () => {
  it('writes a line for each tenth of the units done, and one per phase after them', () => {
    const out = pipe();
    const progress = progressReporter(out.stream, 'inventory', 60_000);

    for (let done = 0; done <= 12; done++)
      progress.update({ unitsDone: done, unitsTotal: 12, rows: done * 10, elapsedMs: 1000 });
    progress.update({
      unitsDone: 12,
      unitsTotal: 12,
      rows: 120,
      elapsedMs: 1000,
      phase: 'FOCUS rows of the days',
    });
    progress.update({
      unitsDone: 12,
      unitsTotal: 12,
      rows: 120,
      elapsedMs: 1000,
      phase: 'FOCUS rows of the days',
    });
    progress.done();

    expect(out.lines()).toEqual([
      'inventory: 0/12 units, 0 rows, 0 rows/s',
      'inventory: 2/12 units, 20 rows, 20 rows/s',
      'inventory: 3/12 units, 30 rows, 30 rows/s',
      'inventory: 4/12 units, 40 rows, 40 rows/s',
      'inventory: 5/12 units, 50 rows, 50 rows/s',
      'inventory: 6/12 units, 60 rows, 60 rows/s',
      'inventory: 8/12 units, 80 rows, 80 rows/s',
      'inventory: 9/12 units, 90 rows, 90 rows/s',
      'inventory: 10/12 units, 100 rows, 100 rows/s',
      'inventory: 11/12 units, 110 rows, 110 rows/s',
      'inventory: 12/12 units, 120 rows, 120 rows/s',
      'inventory: 12/12 units, 120 rows; now the FOCUS rows of the days',
    ]);
    expect(out.lines().join('\n')).not.toContain('\r');
  });
});

describe('waiting on a silent endpoint', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('says every 5 s that it waits, and nothing while a request is answered', () => {
    vi.useFakeTimers();
    const out = pipe();
    const silence = new SilenceBudget(60_000);
    const session = {
      client: { endpoint: 'https://api.example.com', silence, waiting: silence, requestTimeoutMs: 60_000 },
    } as unknown as CloudforetSession;
    const stop = watchSilence(out.stream, 'costs', session);

    silence.asking();
    vi.advanceTimersByTime(11_000);
    silence.heard();
    silence.settled();
    vi.advanceTimersByTime(20_000);
    stop();

    expect(out.lines()).toEqual([
      'costs: waiting for https://api.example.com: no answer for 5 s (gives up after 60 s of silence; --give-up-after)',
      'costs: waiting for https://api.example.com: no answer for 10 s (gives up after 60 s of silence; --give-up-after)',
    ]);
  });
});
