// An account-routed data source (AWS payer accounts, Cloudforet's usual set-up): cost/list returns
// the stored v-workspace ids, cost/analyze rewrites them to the linked workspace after grouping
// (null when unlinked) and does not merge the groups. The change check keys both sides through the
// data source's account links, so an unchanged source plans nothing.
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { queryDuckDB } from '../../../harness/parquet-readers.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { appFolder } from '../../../harness/tokens.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { monthBack } from '../../support/months.ts';
import { snapshotDir } from '../../support/unit-invariants.ts';

const MONTH_2 = monthBack(2);

const FROM = `${MONTH_2}-01`;
const TO = `${MONTH_2}-06`;

let sim: Simulator;
let dir: string;
let secretFile: string;
let routed: string;

beforeAll(async () => {
  sim = await startSimulator({ seed: 71, dataSources: 3, workspaces: 3, from: FROM, to: TO, rowsPerDay: 40 });
  ({ dir, secretFile } = await appFolder('account-routing', sim.issueToken()));
  // The simulator routes one data source's accounts (harness/simulator/world.ts): the one whose
  // stored rows carry virtual workspace ids.
  routed = sim
    .dataSourceIds()
    .find((id) => sim.costRows(id, FROM).some((r) => String(r.workspace_id).startsWith('v-workspace-')))!;
});
afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

async function costs(out: string) {
  const io = fakeIo();
  const argv = ['costs', '--endpoint', sim.url, '--secret-file', secretFile, '--out', out, '--json'];
  const code = await main([...argv, '--from', FROM, '--to', TO, '--data-source', routed], {}, io);
  return { code, summary: JSON.parse(io.out()) };
}

describe('an account-routed data source', () => {
  it('analyze names linked workspaces where the listed rows carry virtual ids', async () => {
    const answer = await fetch(`${sim.url}/cost-analysis/cost/analyze`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sim.issueToken()}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        data_source_id: routed,
        query: {
          granularity: 'DAILY',
          start: FROM,
          end: FROM,
          group_by: ['workspace_id'],
          fields: { n: { operator: 'count' } },
        },
      }),
    }).then((r) => r.json() as Promise<{ results: { workspace_id: string | null; n: number }[] }>);
    const listed = sim.costRows(routed, FROM).map((r) => String(r.workspace_id));

    expect(listed.every((id) => id.startsWith('v-workspace-'))).toBe(true);
    expect(answer.results.length).toBeGreaterThan(1);
    expect(
      answer.results.every((r) => r.workspace_id === null || r.workspace_id.startsWith('workspace-')),
    ).toBe(true);
    expect(answer.results.reduce((n, r) => n + r.n, 0)).toBe(listed.length);
  });

  it('a run reads the account links once: its units map rows through the links its plan read', async () => {
    sim.resetRequestLog();

    const run = await costs(join(dir, 'links-once'));

    expect(run.code).toBe(0);
    expect(run.summary.written).toBe(6);
    const asked = sim.requests
      .filter((r) => r.path === '/cost-analysis/data-source-account/list')
      .map((r) => JSON.stringify(r.body));
    expect(asked.length).toBeGreaterThan(0);
    // Each page of the listing asked once: a second read would ask its first page again.
    expect(new Set(asked).size).toBe(asked.length);
  });

  it('exported twice: the second run lists no page, rewrites nothing and appends no restatement', async () => {
    const out = join(dir, 'twice');
    const first = await costs(out);
    const before = await snapshotDir(out);
    sim.resetRequestLog();

    const second = await costs(out);

    const after = await snapshotDir(out);
    expect(first.code).toBe(0);
    expect(first.summary.written).toBe(6);
    expect(second.code).toBe(0);
    expect(second.summary).toMatchObject({ units: 0, written: 0, unchanged: 6 });
    expect(sim.requests.filter((r) => r.path === '/cost-analysis/cost/list')).toEqual([]);
    const costFiles = [...before.keys()].filter(
      (p) => p.startsWith('costs/') || p.startsWith('_manifests/costs/'),
    );
    for (const path of costFiles) expect([path, after.get(path)]).toEqual([path, before.get(path)]);
    expect(await readdir(join(out, 'ledger', 'cost_restatements')).catch(() => [])).toEqual([]);
  });

  it('re-linked to another workspace: its days are exported once more under it, restated, then settle', async () => {
    const out = join(dir, 'relink');
    expect((await costs(out)).code).toBe(0);
    const rows = sim.costRows(routed, FROM);
    const account = String(rows[0]!.account_id);
    const moved = rows.filter((r) => r.account_id === account).length;
    const file = join(out, 'costs', `billed_date=${FROM}`, `${routed}.parquet`);
    const count = async (where: string) =>
      Number(
        (await queryDuckDB(`SELECT count(*) AS n FROM read_parquet('${file}') WHERE ${where}`)).rows[0]!.n,
      );
    const { rows: linked } = await queryDuckDB(
      `SELECT DISTINCT workspace_id AS w FROM read_parquet('${file}') WHERE account_id = '${account}'`,
    );
    // Another account's workspace: the moved rows join it.
    const other = sim.workspaceIds().find((w) => w !== linked[0]!.w)!;
    const already = await count(`workspace_id = '${other}'`);
    sim.relinkAccount(routed, account, other);

    const relinked = await costs(out);
    const settled = await costs(out);

    expect(relinked.code).toBe(0);
    expect(relinked.summary.units).toBeGreaterThan(0);
    expect(relinked.summary.perDataSource[0]).toMatchObject({ dataSourceId: routed });
    expect(await count(`workspace_id = '${other}'`)).toBe(already + moved);
    const lines = await readdir(join(out, 'ledger', 'cost_restatements'), { recursive: true });
    expect(lines.filter((f) => String(f).endsWith('.json'))).toHaveLength(relinked.summary.written);
    expect(settled.summary).toMatchObject({ units: 0, written: 0 });
  });

  it('an app refused the account links (a workspace member in Cloudforet) still exports, exit 0', async () => {
    const out = join(dir, 'refused-links');
    sim.injectFault({
      path: '/cost-analysis/data-source-account/list',
      kind: '403',
      times: Number.POSITIVE_INFINITY,
    });

    const run = await costs(out).finally(() => sim.clearFaults());

    expect(run.code).toBe(0);
    expect(run.summary).toMatchObject({ written: 6, failed: 0 });
  });
});
