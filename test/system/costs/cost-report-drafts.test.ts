// A draft cost report (IN_PROGRESS, ADJUSTING) replaced by Cloudforet with one of fewer data rows:
// the draft's data file shrinks only through the gate (destination/gate.ts), whose proof is kept in
// the manifest; an answer that proves nothing ({} for the data rows) replaces nothing.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { archiveCostReports, reportFileName } from '../../../functions/lib/costs/cost-reports/archive.ts';
import { silentLogger } from '../../../functions/lib/log.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { readWithArrow } from '../../../harness/parquet-readers.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { monthBack, monthEnd } from '../../support/months.ts';

const M = monthBack(1);

describe('a draft report replaced by one with fewer data rows', () => {
  let sim: Simulator;
  let dir: string;
  let client: CloudforetClient;
  const archive = (runId: string) =>
    archiveCostReports({ client, sink: dirSink(dir), runId, log: silentLogger });
  const dataOf = async (name: string) => {
    const base = join(dir, 'cost_report_data', `report_month=${M}`, `${name}.parquet`);
    return readWithArrow(new Uint8Array(await readFile(base))).rows;
  };
  const manifestOf = async (table: string, name: string) =>
    JSON.parse(await readFile(join(dir, '_manifests', table, `report_month=${M}`, `${name}.json`), 'utf8'));
  const truthRows = (id: unknown) => sim.costReportTruth().data.filter((d) => d.cost_report_id === id);

  beforeAll(async () => {
    sim = await startSimulator({ seed: 41, dataSources: 3, from: `${M}-01`, to: monthEnd(1), rowsPerDay: 6 });
    dir = await mkdtemp(join(tmpdir(), 'report-drafts-'));
    client = new CloudforetClient({ endpoint: sim.url, token: sim.issueToken(), dispatcher: new Agent() });
  }, 60_000);
  afterAll(async () => {
    await sim?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('shrinks the draft’s data file through the gate, its proof in the manifest', async () => {
    const [first] = sim.runCostReportJob(M, 'IN_PROGRESS') as Array<Record<string, unknown>>;
    expect((await archive('drafts01')).draftsWritten).toBe(sim.workspaceIds().length);
    const slot = reportFileName(first!);
    const before = await dataOf(slot);
    expect(before.length).toBe(truthRows(first!.cost_report_id).length);
    // A data source loses every row of the month (a resync): the next job's drafts have fewer rows.
    const ds = sim.dataSourceIds()[0] as string;
    const last = Number(monthEnd(1).slice(8, 10));
    for (let day = 1; day <= last; day++)
      sim.resync(ds, `${M}-${String(day).padStart(2, '0')}`, { rowDelta: -1000 });
    const next = (sim.runCostReportJob(M, 'ADJUSTING') as Array<Record<string, unknown>>).find(
      (r) => reportFileName(r) === slot,
    )!;
    expect(next.cost_report_id).not.toBe(first!.cost_report_id);
    const expected = truthRows(next.cost_report_id);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(before.length);

    expect((await archive('drafts02')).draftsWritten).toBe(sim.workspaceIds().length);

    const after = await dataOf(slot);
    expect(after.map((d) => d.cost_report_data_id).sort()).toEqual(
      expected.map((d) => d.cost_report_data_id).sort(),
    );
    expect(new Set(after.map((d) => d.cost_report_id))).toEqual(new Set([next.cost_report_id]));
    const manifest = await manifestOf('cost_report_data', slot);
    expect(manifest).toMatchObject({
      rows: expected.length,
      costReportId: next.cost_report_id,
      status: 'ADJUSTING',
      shrunkBecause: `a complete listing of ${expected.length} rows (was ${before.length})`,
    });
    expect((await manifestOf('cost_reports', slot)).costReportId).toBe(next.cost_report_id);
  });

  it('keeps the published draft when the data rows answer {} (no proof), and catches up on the next run', async () => {
    const slotReport = (await manifestOf(
      'cost_reports',
      reportFileName(sim.costReportTruth().reports[0]!),
    )) as {
      costReportId: string;
    };
    const made = sim.runCostReportJob(M, 'ADJUSTING') as Array<Record<string, unknown>>;
    const target = made.find((r) => reportFileName(r) === reportFileName(sim.costReportTruth().reports[0]!))!;
    const slot = reportFileName(target);
    const published = await dataOf(slot);
    const publishedManifest = await manifestOf('cost_report_data', slot);
    expect(publishedManifest.costReportId).toBe(slotReport.costReportId);
    // Every data listing answers {} (what a gateway may answer): an empty answer proves nothing.
    sim.injectFault({ path: '/cost-analysis/cost-report-data/list', kind: 'empty', times: 100 });
    const unanswered = await archive('drafts03');
    sim.clearFaults();
    // Nothing written for any report of the listing: each is named, none counted as written.
    expect(unanswered.draftsWritten).toBe(0);
    expect([...unanswered.dataUnanswered].sort()).toEqual(made.map((r) => r.cost_report_id).sort());
    // The published rows stay, and the report file still names the draft they belong to.
    expect(await dataOf(slot)).toEqual(published);
    expect((await manifestOf('cost_report_data', slot)).costReportId).toBe(slotReport.costReportId);
    expect((await manifestOf('cost_reports', slot)).costReportId).toBe(slotReport.costReportId);
    // The next run, answered, writes the new draft and its rows.
    const answered = await archive('drafts04');
    expect(answered).toMatchObject({ draftsWritten: made.length, dataUnanswered: [] });
    const now = await dataOf(slot);
    expect(now.map((d) => d.cost_report_data_id).sort()).toEqual(
      truthRows(target.cost_report_id)
        .map((d) => d.cost_report_data_id)
        .sort(),
    );
    expect((await manifestOf('cost_reports', slot)).costReportId).toBe(target.cost_report_id);
  });
});
