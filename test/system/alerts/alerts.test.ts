// The alerts function end to end, invoked as Lambda would: simulator exports through the cost
// function into s3rver, the alerts function reading them and publishing to a loopback SNS that
// speaks the real protocol. Each test builds on the ledger the ones before it left.
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler as alerts } from '../../../functions/alerts.ts';
import { handler as costExport } from '../../../functions/cost-export.ts';
import { addDays } from '../../../functions/lib/dates.ts';
import { BUCKET, type LocalAws, PREFIX, startLocalAws } from '../../../harness/local-aws.ts';
import { listKeys } from '../../../harness/s3-server.ts';
import { type SnsResponder, startSns } from '../../../harness/sns-responder.ts';
import { loadNamedQueries } from '../../../infra/named-queries.ts';
import { monthsBack } from '../../support/months.ts';

// 60 days that end well before today, inside Cloudforet's retention whatever the date.
const FROM = monthsBack(4);
const TO = addDays(FROM, 59);
const context = (id: string) => ({ awsRequestId: id, functionName: 'alerts' }) as Context;
const money = (n: number) =>
  n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

let local: LocalAws;
let sns: SnsResponder;
let restoreEnv: () => void;
let ds: string;
let ds2: string;
let spike: string;
/** Alerts the clean export itself raised (finer scopes only): what the tests count from. */
let clean: number;

/**
 * Of days 31-45 (those `allowed`), the one whose cost is nearest the median of its 28 days before:
 * 4x it is 4x normal, whatever the simulated data of the day, so its data source's own anomaly heads the alert.
 */
function ordinaryDay(dataSourceId: string, allowed: (day: string) => boolean = () => true): string {
  const cost = (i: number) => local.simulator.costTruth(dataSourceId, addDays(FROM, i)).costSum;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const off = (i: number) =>
    Math.abs(cost(i) - median(Array.from({ length: 28 }, (_, k) => cost(i - 28 + k))));
  const days = Array.from({ length: 15 }, (_, k) => 31 + k).filter((i) => allowed(addDays(FROM, i)));
  return addDays(
    FROM,
    days.reduce((best, i) => (off(i) < off(best) ? i : best)),
  );
}

const run = (id: string) => alerts({ from: FROM }, context(id));

beforeAll(async () => {
  local = await startLocalAws({
    seed: 81,
    dataSources: 2,
    workspaces: 3,
    from: FROM,
    to: TO,
    rowsPerDay: 100,
  });
  sns = await startSns();
  restoreEnv = local.applyEnv({ ALERTS_TOPIC_ARN: sns.topicArn, AWS_ENDPOINT_URL_SNS: sns.endpoint });
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  [ds, ds2] = local.simulator.dataSourceIds() as [string, string];
  spike = ordinaryDay(ds);
  const exported = await costExport({ from: FROM, to: TO }, context('cost-1'));
  expect(exported.failed).toBe(0);
}, 120_000);
afterAll(async () => {
  vi.restoreAllMocks();
  restoreEnv();
  await sns.stop();
  await local.stop();
});

describe('alerts function', () => {
  it('raises no data-source alert over 60 clean days', async () => {
    const result = await run('alerts-0');

    clean = sns.published.length;
    expect(result).toMatchObject({ sent: clean, failed: 0 });
    for (const m of sns.published) expect(m.message).not.toContain('Scope:        data_source\n');
  });

  it('publishes one alert for a day at 4x on one data source, naming its figures and the saved query', async () => {
    local.simulator.resync(ds, spike, { costFactor: 4 });
    expect((await costExport({ date: spike }, context('cost-1'))).written).toBe(1);

    const result = await run('alerts-1');

    const truth = local.simulator.costTruth(ds, spike).costSum;
    expect(result).toMatchObject({ sent: 1, failed: 0 });
    expect(sns.published).toHaveLength(clean + 1);
    const alert = sns.published[clean]!;
    expect(alert.topicArn).toBe(sns.topicArn);
    expect(alert.subject!.length).toBeLessThanOrEqual(100);
    expect(alert.subject).toMatch(
      new RegExp(
        `^Cost anomaly on ${spike}: ${ds}, ${money(truth).replace('.', '\\.')} USD \\([34]\\.\\dx expected\\)$`,
      ),
    );
    expect(alert.message).toContain(`Data source:  ${ds}\n`);
    expect(alert.message).toContain(`Day:          ${spike} (billed date, UTC)\n`);
    expect(alert.message).toContain('Scope:        data_source\n');
    expect(alert.message).toContain(`Key:          ${ds}\n`);
    expect(alert.message).toMatch(/Expected: {5}[\d,]+\.\d\d USD \(median of up to 28 days before\)\n/);
    expect(alert.message).toContain(`Actual:       ${money(truth)} USD`);
    expect(alert.message).toContain("Currency:     USD (the data source's own)\n");
    expect(alert.message).toContain(`WHERE billed_date = '${spike}' AND data_source_id = '${ds}'`);
    expect(loadNamedQueries().map((q) => q.name)).toContain(/saved query (\w+)/.exec(alert.message)![1]);
    // Slack through AWS Chatbot (an HTTPS subscriber): its custom notification, the same text inside.
    expect(JSON.parse(alert.https)).toEqual({
      version: '1.0',
      source: 'custom',
      content: {
        textType: 'client-markdown',
        title: alert.subject,
        description: `\`\`\`\n${alert.message}\`\`\``,
      },
    });
  });

  it('sends nothing new on the next run: the ledger says it went out', async () => {
    const result = await run('alerts-2');

    expect(result).toMatchObject({ sent: 0, alreadySent: clean + 1, failed: 0 });
    expect(sns.published).toHaveLength(clean + 1);
  });

  it('does not alert again when the day is restated by 2.5 %', async () => {
    local.simulator.resync(ds, spike, { costFactor: 1.025 });
    expect((await costExport({ date: spike }, context('cost-2'))).written).toBe(1);

    const result = await run('alerts-3');

    expect(result).toMatchObject({ sent: 0, alreadySent: clean + 1 });
    expect(sns.published).toHaveLength(clean + 1);
  });

  it('alerts again, as restated, when the day moves by more than 10 %', async () => {
    const before = local.simulator.costTruth(ds, spike).costSum;
    local.simulator.resync(ds, spike, { costFactor: 5 / 4.1 });
    expect((await costExport({ date: spike }, context('cost-3'))).written).toBe(1);

    const result = await run('alerts-4');

    expect(result).toMatchObject({ sent: 1, failed: 0 });
    expect(sns.published).toHaveLength(clean + 2);
    const restated = sns.published[clean + 1]!;
    expect(restated.subject).toMatch(new RegExp(`^Cost anomaly \\(restated\\) on ${spike}: ${ds}, `));
    expect(restated.message).toContain(
      `Actual:       ${money(local.simulator.costTruth(ds, spike).costSum)} USD`,
    );
    expect(restated.message).toMatch(/^Cloudforet restated a day alerted before at ([\d,]+\.\d\d) USD/);
    // The figure alerted before was the 4x day read back from the export, within a rounding of the truth.
    const alertedBefore = Number(
      /alerted before at ([\d,.]+) USD/.exec(restated.message)![1]!.replaceAll(',', ''),
    );
    expect(alertedBefore).toBeCloseTo(before / 1.025, 1);
  });

  it('fails when SNS fails, claims nothing in the ledger, and sends the alert at the next run', async () => {
    const day2 = ordinaryDay(ds2);
    local.simulator.resync(ds2, day2, { costFactor: 4 });
    expect((await costExport({ date: day2 }, context('cost-4'))).written).toBe(1);
    sns.setFailing(true);

    await expect(run('alerts-5')).rejects.toThrow(
      /1 of 1 alerts could not be published.*SNS_PUBLISH_FAILED|could not publish/,
    );

    expect(await listKeys(local.s3.client, BUCKET, `${PREFIX}/_alerts/sent/anomaly/${day2}/`)).toEqual([]);
    expect(sns.published).toHaveLength(clean + 2);
    sns.setFailing(false);
    const result = await run('alerts-6');
    expect(result).toMatchObject({ sent: 1, alreadySent: clean + 1, failed: 0 });
    expect(sns.published).toHaveLength(clean + 3);
    expect(sns.published[clean + 2]!.subject).toMatch(new RegExp(`^Cost anomaly on ${day2}: ${ds2}, `));
    expect(await listKeys(local.s3.client, BUCKET, `${PREFIX}/_alerts/sent/anomaly/${day2}/`)).toEqual([
      `${PREFIX}/_alerts/sent/anomaly/${day2}/${ds2}/v0001.json`,
      `${PREFIX}/_alerts/sent/anomaly/${day2}/${ds2}/v0001.sent.json`,
    ]);
  });

  it('publishes an alert once when two runs race for it', async () => {
    // Another ordinary day, alerted by no run before: the race is for its first alert.
    const alerted = await listKeys(local.s3.client, BUCKET, `${PREFIX}/_alerts/sent/anomaly/`);
    const day3 = ordinaryDay(ds, (day) => !alerted.some((key) => key.includes(`/anomaly/${day}/${ds}/`)));
    local.simulator.resync(ds, day3, { costFactor: 4 });
    expect((await costExport({ date: day3 }, context('cost-5'))).written).toBe(1);

    const results = await Promise.all([run('alerts-7a'), run('alerts-7b')]);

    expect(results.map((r) => r.sent).sort()).toEqual([0, 1]);
    expect(sns.published).toHaveLength(clean + 4);
    expect(sns.published[clean + 3]!.subject).toMatch(new RegExp(`^Cost anomaly on ${day3}: ${ds}, `));
  });
});
