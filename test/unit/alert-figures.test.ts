// Alerts are about one day's own figure: spikes on neighbouring days move a day's baseline, and so
// which scope heads its alert, but a day is alerted again only when its own cost moves by more
// than the threshold. Runs of the alerts use case over cost manifests in a directory, as the
// export writes them, with other days restated between runs.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAlerts } from '../../functions/lib/alerts/run.ts';
import { addDays } from '../../functions/lib/dates.ts';
import { manifestKey, objectKey } from '../../functions/lib/destination/layout.ts';
import { silentLogger } from '../../functions/lib/log.ts';
import { dirSink } from '../../functions/lib/storage/dir-sink.ts';
import type { Sink } from '../../functions/lib/storage/sink.ts';
import { costTable } from '../../functions/lib/tables/costs.ts';

const NOW = new Date('2026-06-30T06:00:00Z');
const FIRST = '2026-04-20';
const DS = 'ds-figures';
/** The day judged: 45 days in, its 28-day baseline wholly inside the series. */
const D = addDays(FIRST, 45);
/** 15 of the 28 days before D: enough to move its median. */
const NEIGHBOURS = Array.from({ length: 15 }, (_, i) => addDays(D, -20 + i));

let dir: string;
let sink: Sink;
const sent: Array<{ subject: string; body: string }> = [];

/** One day's manifest: two groups (project|workspace|service account), 50 each on a normal day. */
async function publishDay(day: string, p1: number, p2: number): Promise<void> {
  const groups = [
    { key: 'p1|w1|sa1', rows: 10, costSum: p1 },
    { key: 'p2|w2|sa2', rows: 10, costSum: p2 },
  ];
  const manifest = {
    table: 'costs',
    partition: day,
    dataSourceId: DS,
    key: objectKey(costTable, day, DS),
    rows: 20,
    totalCount: 20,
    costSum: p1 + p2,
    groups,
    bytes: 1,
    schemaVersion: 1,
    lastSynchronizedAt: NOW.toISOString(),
    runId: 'fixture',
    exportedAt: NOW.toISOString(),
  };
  await sink.put(manifestKey(costTable, day, DS), JSON.stringify(manifest), 'application/json');
}

/** A little day-to-day wobble (±2 %), so the baseline has a spread. */
const normal = (i: number) => Math.round(50 * (1 + 0.02 * Math.sin(i * 1.7)) * 100) / 100;

async function alertsOfD(run: string): Promise<string[]> {
  const before = sent.length;
  await runAlerts(
    {
      sink,
      log: silentLogger,
      now: NOW,
      runId: run,
      publish: async (m) => `${sent.push(m)}`,
    },
    { from: FIRST },
  );
  return sent.slice(before).flatMap((m) => (m.subject.includes(` on ${D}: `) ? [m.subject] : []));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'alert-figures-'));
  sink = dirSink(dir);
  for (let i = 0; i < 60; i++) await publishDay(addDays(FIRST, i), normal(i), normal(i + 31));
  // D: its first project at 5x, the day at 3x its baseline.
  await publishDay(D, 250, 50);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('an anomaly alert is about its day’s own figure', () => {
  it('alerts the day once, headed by the data source', async () => {
    expect(await alertsOfD('run-1')).toEqual([`Cost anomaly on ${D}: ${DS}, 300.00 USD (3.0x expected)`]);
  });

  it('does not alert it again when spikes on the days before move its baseline', async () => {
    for (const day of NEIGHBOURS) await publishDay(day, 50, 200);

    expect(await alertsOfD('run-2')).toEqual([]);
  });

  it('does not alert it again when those days are restated back', async () => {
    for (const [i, day] of NEIGHBOURS.entries()) await publishDay(day, normal(25 + i), normal(56 + i));

    expect(await alertsOfD('run-3')).toEqual([]);
  });

  it('alerts it again, as restated, when its own cost moves by more than 10 %', async () => {
    await publishDay(D, 350, 50);

    const subjects = await alertsOfD('run-4');

    expect(subjects).toEqual([`Cost anomaly (restated) on ${D}: ${DS}, 400.00 USD (4.0x expected)`]);
    expect(sent.at(-1)!.body).toMatch(
      /^Cloudforet restated a day alerted before at 300\.00 USD \(the data source's cost that day\): it is now 400\.00 USD/,
    );
  });
});
