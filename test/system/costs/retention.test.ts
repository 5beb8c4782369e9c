// A range reaching past Cloudforet's 12-month retention: the days it still has are exported, the
// older ones reported as beyond retention, archived objects for them kept; exit 0.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { retentionStart } from '../../../functions/lib/costs/planning/job-history.ts';
import { clampToRetention } from '../../../functions/lib/costs/planning/retention.ts';
import { runCostExport } from '../../../functions/lib/costs/run.ts';
import { costObjectKey } from '../../../functions/lib/costs/sources/day-keys.ts';
import { addDays, daysBetween } from '../../../functions/lib/dates.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { appFolder } from '../../../harness/tokens.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { monthsBack } from '../../support/months.ts';

describe('ranges older than Cloudforet keeps', () => {
  const FROM = monthsBack(13);
  const TO = addDays(monthsBack(10), -1);
  let sim: Simulator;
  let dir: string;
  let secretFile: string;

  beforeAll(async () => {
    sim = await startSimulator({
      seed: 41,
      dataSources: 2,
      from: FROM,
      to: TO,
      rowsPerDay: 5,
      retentionMonths: 12,
    });
    ({ dir, secretFile } = await appFolder('retention', sim.issueToken()));
  });
  afterAll(async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('--from 13 months back exports the days inside retention, keeps the archive and exits 0', async () => {
    const out = join(dir, 'out');
    const [ds] = sim.dataSourceIds() as [string];
    const archived = join(out, costObjectKey(ds, FROM));
    await mkdir(dirname(archived), { recursive: true });
    await writeFile(archived, 'archived before Cloudforet purged the day');
    const io = fakeIo();

    const code = await main(
      [
        'costs',
        '--endpoint',
        sim.url,
        '--secret-file',
        secretFile,
        '--out',
        out,
        '--from',
        FROM,
        '--to',
        TO,
        '--json',
      ],
      {},
      io,
    );

    const first = retentionStart(new Date());
    const inside = daysBetween(first, TO).length;
    const outside = daysBetween(FROM, addDays(first, -1)).length;
    expect(io.err()).not.toContain('cloudforet-export:');
    expect(code).toBe(0);
    expect(JSON.parse(io.out())).toMatchObject({
      units: inside * 2,
      written: inside * 2,
      failed: 0,
      beyondRetention: outside * 2,
      retainedFrom: first,
    });
    expect(await readFile(archived, 'utf8')).toBe('archived before Cloudforet purged the day');
  });

  it('says so in words', async () => {
    const io = fakeIo();

    const code = await main(
      [
        'costs',
        '--endpoint',
        sim.url,
        '--secret-file',
        secretFile,
        '--out',
        join(dir, 'words'),
        '--from',
        FROM,
        '--to',
        TO,
      ],
      {},
      io,
    );

    expect(code).toBe(0);
    expect(io.out()).toMatch(
      /\d+ units \(data source × day\) before \d{4}-\d{2}-\d{2} are beyond Cloudforet's 12-month retention/,
    );
  });
});

describe('a range wholly past retention', () => {
  it('is refused with exit 2 and the reason, before any request', async () => {
    const first = retentionStart(new Date());
    const io = fakeIo();

    const code = await main(
      [
        ...['costs', '--endpoint', 'http://127.0.0.1:9', '--secret-file', '/nonexistent/app.json'],
        ...['--out', join(tmpdir(), 'never-written'), '--date', addDays(first, -1)],
      ],
      {},
      io,
    );

    expect(code).toBe(2);
    expect(io.err()).toBe(
      `cloudforet-export: ${addDays(first, -1)} is wholly before ${first}: Cloudforet keeps daily costs for 12 months ` +
        `(this one included), so there is nothing to export; ask for ${first} or later (objects already archived are untouched) [EVENT_BEYOND_RETENTION]\n`,
    );
  });
});

describe('clampToRetention', () => {
  const now = new Date('2026-11-23T10:00:00Z');

  it('keeps a range inside retention as it is', () => {
    expect(clampToRetention({ from: '2026-06-01', to: '2026-06-30' }, now)).toEqual({
      from: '2026-06-01',
      to: '2026-06-30',
      beyondRetention: [],
    });
  });

  it('starts a range reaching further back at the first retained month', () => {
    const window = clampToRetention({ from: '2025-11-28', to: '2025-12-02' }, now);

    expect(window.from).toBe('2025-12-01');
    expect(window.beyondRetention).toEqual(['2025-11-28', '2025-11-29', '2025-11-30']);
  });

  it('plans nothing for a range wholly beyond retention', () => {
    const window = clampToRetention({ from: '2025-01-01', to: '2025-01-03' }, now);

    expect(window.from > window.to).toBe(true);
    expect(window.beyondRetention).toHaveLength(3);
  });
});

describe('days kept by the archive guard', () => {
  it('are remembered in their manifest and not planned again while Cloudforet answers them empty', async () => {
    const day = addDays(monthsBack(1), 4);
    const sim = await startSimulator({ seed: 53, dataSources: 1, from: day, to: day, rowsPerDay: 20 });
    const dir = await mkdtemp(join(tmpdir(), 'kept-'));
    const client = new CloudforetClient({
      endpoint: sim.url,
      token: sim.issueToken(),
      dispatcher: new Agent(),
    });
    const deps = { client, sink: dirSink(dir), archiveAfterDays: 0 };
    const [ds] = sim.dataSourceIds() as [string];
    try {
      await runCostExport(deps, { from: day, to: day });
      const object = await readFile(join(dir, costObjectKey(ds, day)));
      sim.resync(ds, day, { rowDelta: -1_000_000 });

      const keeping = await runCostExport(deps, { from: day, to: day });
      const after = await runCostExport(deps, { from: day, to: day });

      expect(sim.costTruth(ds, day).rows).toBe(0);
      expect(keeping).toMatchObject({ units: 1, kept: 1 });
      expect(after).toMatchObject({ units: 0, unchanged: 1 });
      expect(await readFile(join(dir, costObjectKey(ds, day)))).toEqual(object);
    } finally {
      await sim.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
