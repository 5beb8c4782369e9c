// Two apps of one domain, one --out: the workspace app's cost run must not replace the domain
// app's cost objects with its own subset (cost keys carry no scope). It is refused, and nothing is lost.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { daysBetween } from '../../../functions/lib/dates.ts';
import { queryDuckDB } from '../../../harness/parquet-readers.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { consoleAppJson } from '../../../harness/tokens.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { monthBack } from '../../support/months.ts';
import { snapshotDir } from '../../support/unit-invariants.ts';

const MONTH_2 = monthBack(2);

const FROM = `${MONTH_2}-01`;
const TO = `${MONTH_2}-05`;

describe('one destination, two scopes', () => {
  let sim: Simulator;
  let dir: string;
  let domainApp: string;
  let workspaceApp: string;
  const costs = (secret: string, out: string) =>
    main(
      ['costs', '--endpoint', sim.url, '--secret-file', secret, '--out', out, '--from', FROM, '--to', TO],
      {},
      fakeIo(),
    );
  const tableRows = async (out: string) =>
    Number(
      (
        await queryDuckDB(
          `SELECT count(*) AS n FROM read_parquet('${out}/costs/*/*', hive_partitioning = true)`,
        )
      ).rows[0]!.n,
    );

  beforeAll(async () => {
    sim = await startSimulator({
      seed: 19,
      dataSources: 3,
      workspaces: 3,
      from: FROM,
      to: TO,
      rowsPerDay: 40,
    });
    dir = await mkdtemp(join(tmpdir(), 'dest-scope-'));
    domainApp = join(dir, 'domain.json');
    workspaceApp = join(dir, 'workspace.json');
    await writeFile(domainApp, consoleAppJson(sim.issueToken()));
    const workspaceToken = sim.issueToken({ role: 'WORKSPACE_OWNER', workspaceId: sim.workspaceIds()[0] });
    await writeFile(workspaceApp, consoleAppJson(workspaceToken));
  });
  afterAll(async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("refuses a workspace app's cost run into a domain app's destination, naming both, and loses no row", async () => {
    const out = join(dir, 'shared');
    expect(await costs(domainApp, out)).toBe(0);
    const before = await snapshotDir(out);
    const io = fakeIo();

    const code = await main(
      [
        'costs',
        '--endpoint',
        sim.url,
        '--secret-file',
        workspaceApp,
        '--out',
        out,
        '--from',
        FROM,
        '--to',
        TO,
      ],
      {},
      io,
    );

    const truth = sim
      .dataSourceIds()
      .flatMap((ds) => daysBetween(FROM, TO).map((d) => sim.costTruth(ds, d).rows))
      .reduce((a, b) => a + b, 0);
    expect(code).toBe(2);
    expect(io.err()).toContain('DESTINATION_SCOPE_MISMATCH');
    expect(io.err()).toContain(`the domain app of ${sim.domainId}`);
    expect(io.err()).toContain(`workspace ${sim.workspaceIds()[0]}`);
    expect(io.err()).toContain('its own prefix');
    expect(await tableRows(out)).toBe(truth);
    expect(await snapshotDir(out)).toEqual(before);
  });

  it('refuses before any Cloudforet request', async () => {
    const out = join(dir, 'first-domain');
    expect(await costs(domainApp, out)).toBe(0);
    const requestsBefore = sim.requests.length;

    const code = await costs(workspaceApp, out);

    expect(code).toBe(2);
    expect(sim.requests.length).toBe(requestsBefore);
  });

  it('lets each scope export into its own prefix, and the same scope export again', async () => {
    const root = join(dir, 'prefixes');

    const codes = [
      await costs(domainApp, join(root, 'domain')),
      await costs(workspaceApp, join(root, 'workspace')),
      await costs(domainApp, join(root, 'domain')),
    ];

    expect(codes).toEqual([0, 0, 0]);
    expect(await tableRows(join(root, 'workspace'))).toBeLessThan(await tableRows(join(root, 'domain')));
  });
});
