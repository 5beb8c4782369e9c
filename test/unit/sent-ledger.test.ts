// The sent-alerts ledger on a directory sink, with a recording publisher: claims, confirmations,
// released claims, abandoned claims, material changes, and SNS-safe subjects.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { snsSubject } from '../../functions/lib/alerts/alert-text.ts';
import { type Alert, isMaterialChange, sendOnce } from '../../functions/lib/alerts/sent-ledger.ts';
import { alertClaimKey } from '../../functions/lib/destination/layout.ts';
import { dirSink } from '../../functions/lib/storage/dir-sink.ts';
import type { Sink } from '../../functions/lib/storage/sink.ts';

const NOW = new Date('2026-11-25T09:00:00Z');
const alert = (figure?: number): Alert => ({
  id: ['anomaly', '2026-11-20', 'ds-1'],
  figure,
  message: (previous) => ({ subject: previous ? 'restated' : 'first', body: `figure ${figure}` }),
});

let dir: string;
let sink: Sink;
let sent: string[];
const publish = async (m: { subject: string }) => {
  sent.push(m.subject);
  return `msg-${sent.length}`;
};

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sent-ledger-'));
  sink = dirSink(dir);
  sent = [];
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('sendOnce', () => {
  it('sends, confirms, and does not send the same figure again', async () => {
    const first = await sendOnce({ sink, publish, now: NOW }, alert(100));
    const second = await sendOnce({ sink, publish, now: NOW }, alert(100));

    expect(first).toMatchObject({ outcome: 'sent', version: 1, messageId: 'msg-1', subject: 'first' });
    expect(second).toEqual({ outcome: 'already sent' });
    expect((await sink.list('_alerts/')).sort()).toEqual([
      '_alerts/sent/anomaly/2026-11-20/ds-1/v0001.json',
      '_alerts/sent/anomaly/2026-11-20/ds-1/v0001.sent.json',
    ]);
  });

  it('sends a materially changed figure as the next version, told the figure before', async () => {
    await sendOnce({ sink, publish, now: NOW }, alert(100));

    const result = await sendOnce({ sink, publish, now: NOW }, alert(111));

    expect(result).toMatchObject({ outcome: 'sent', version: 2, subject: 'restated' });
    expect(sent).toEqual(['first', 'restated']);
  });

  it('releases the claim when publishing fails, so that the next run sends', async () => {
    const failing = async () => Promise.reject(new Error('SNS said 500'));

    const failed = await sendOnce({ sink, publish: failing, now: NOW }, alert(100));

    expect(failed).toMatchObject({ outcome: 'failed' });
    expect(await sink.list('_alerts/')).toEqual([]);
    expect(await sendOnce({ sink, publish, now: NOW }, alert(100))).toMatchObject({
      outcome: 'sent',
      version: 1,
    });
  });

  it('leaves a fresh unconfirmed claim to the run that holds it, and takes over an abandoned one', async () => {
    const claim = (minutesAgo: number) =>
      JSON.stringify({
        figure: 100,
        subject: 'first',
        claimedAt: new Date(NOW.getTime() - minutesAgo * 60_000).toISOString(),
      });
    await sink.put(alertClaimKey(alert().id, 1), claim(5), 'application/json');

    const fresh = await sendOnce({ sink, publish, now: NOW }, alert(100));
    await sink.put(alertClaimKey(alert().id, 1), claim(30), 'application/json');
    const abandoned = await sendOnce({ sink, publish, now: NOW }, alert(100));

    expect(fresh).toEqual({ outcome: 'in flight' });
    expect(abandoned).toMatchObject({ outcome: 'sent', version: 2, subject: 'first' });
  });
});

describe('isMaterialChange', () => {
  it('needs more than 10 % of the figure alerted and at least 1 unit', () => {
    expect([
      isMaterialChange(100, 110),
      isMaterialChange(100, 110.01),
      isMaterialChange(100, 89),
      isMaterialChange(5, 5.9),
      isMaterialChange(5, 6),
    ]).toEqual([false, true, true, false, true]);
  });
});

describe('snsSubject', () => {
  it('keeps 100 printable ASCII characters, drops accents and marks what it cannot show', () => {
    expect(snsSubject('Coût anomaly:\n 한국 AWS')).toBe('Cout anomaly: ?? AWS');
    const long = snsSubject(`Cost anomaly on 2026-11-20: ${'x'.repeat(120)}`);
    expect(long).toHaveLength(100);
    expect(long.endsWith('...')).toBe(true);
  });
});
