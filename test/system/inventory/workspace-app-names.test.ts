// A workspace owner app's own exports name its workspace: its inventory snapshot holds its
// workspace row (read through workspace/analyze, as it may not call workspace/list), so
// costs_named over its files, in DuckDB, shows the workspace name on every one of its cost rows.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { type AthenaLike, athenaOver } from '../../../harness/duckdb-athena.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { loadNamedQueries } from '../../../infra/named-queries.ts';
import { fakeIo } from '../../support/fake-io.ts';

const TO = addDays(utcDay(new Date()), -1);
const FROM = addDays(TO, -2);

describe("a workspace app's costs_named", () => {
  let simulator: Simulator;
  let dir: string;
  let db: AthenaLike;
  let workspaceId: string;

  beforeAll(async () => {
    simulator = await startSimulator({ seed: 21, workspaces: 3, to: TO, rowsPerDay: 40, cloudServices: 30 });
    workspaceId = simulator.workspaceIds()[1]!;
    dir = await mkdtemp(join(tmpdir(), 'workspace-names-'));
    const out = join(dir, 'out');
    await writeFile(join(dir, 'app.secret'), simulator.issueToken({ role: 'WORKSPACE_OWNER', workspaceId }));
    const common = ['--endpoint', simulator.url, '--secret-file', join(dir, 'app.secret'), '--out', out];
    expect(await main(['costs', ...common, '--from', FROM, '--to', TO], {}, fakeIo())).toBe(0);
    expect(await main(['inventory', ...common], {}, fakeIo())).toBe(0);
    db = await athenaOver(out);
    for (const view of loadNamedQueries().filter((q) => q.sql.startsWith('CREATE OR REPLACE VIEW')))
      await db.run(view.sql);
  });
  afterAll(async () => {
    db?.close();
    await simulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('holds one workspaces row, its own, with its name', async () => {
    const rows = await db.run('SELECT workspace_id, name, state FROM workspaces');

    expect(rows).toEqual([
      { workspace_id: workspaceId, name: 'Données & Analytics / "Σ"', state: 'ENABLED' },
    ]);
  });

  it('shows the workspace name on every cost row', async () => {
    const rows = await db.run(
      'SELECT workspace_id, workspace_name, count(*) AS n FROM costs_named GROUP BY 1, 2 ORDER BY 1, 2',
    );
    const [all] = await db.run('SELECT count(*) AS n FROM costs');

    expect(rows.map((r) => [r.workspace_id, r.workspace_name])).toEqual([
      [workspaceId, 'Données & Analytics / "Σ"'],
    ]);
    expect(Number(rows[0]!.n)).toBe(Number(all!.n));
    expect(Number(all!.n)).toBeGreaterThan(0);
  });
});
