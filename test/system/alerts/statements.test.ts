// `cloudforet-export statements`: one CSV and one HTML statement per workspace, from the unified
// costs `costs` exported; each workspace's CSV adds up to its unified-cost total in the currency.
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.ts';
import { addDays } from '../../../functions/lib/dates.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';
import { appFolder, consoleAppJson } from '../../../harness/tokens.ts';
import { fakeIo } from '../../support/fake-io.ts';
import { monthsBack } from '../../support/months.ts';

// A whole month well inside Cloudforet's retention, whatever the date.
const FROM = monthsBack(3);
const MONTH = FROM.slice(0, 7);
const TO = addDays(monthsBack(2), -1);

let sim: Simulator;
let dir: string;
let secretFile: string;

beforeAll(async () => {
  sim = await startSimulator({ seed: 91, dataSources: 3, workspaces: 3, from: FROM, to: TO, rowsPerDay: 20 });
  ({ dir, secretFile } = await appFolder('statements', sim.issueToken()));
});
afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

/** workspace (or 'unassigned') -> the month's unified-cost total in `currency`, from the simulator. */
function truth(currency: string, workspaceId?: string): Map<string, number> {
  const totals = new Map<string, number>();
  for (const r of sim.unifiedCostRecords()) {
    if (r.billed_month !== MONTH) continue;
    const ws = typeof r.workspace_id === 'string' && r.workspace_id ? r.workspace_id : 'unassigned';
    if (workspaceId && ws !== workspaceId) continue;
    const cost = Number((r.cost as Record<string, number>)[currency] ?? 0);
    totals.set(ws, (totals.get(ws) ?? 0) + cost);
  }
  return totals;
}

/** workspace -> the sum of its CSV's cost column, parsed as RFC 4180 (no quoted cost fields). */
async function csvTotals(out: string): Promise<Map<string, number>> {
  const folder = join(out, 'statements', `billed_month=${MONTH}`);
  const totals = new Map<string, number>();
  for (const f of (await readdir(folder)).filter((n) => n.endsWith('.csv'))) {
    const [header, ...lines] = (await readFile(join(folder, f), 'utf8')).split('\r\n').filter(Boolean);
    expect(header).toBe(
      'workspace_id,project_id,project_name,provider,product,data_source_id,service_account_id,origin_currency,cost,cost_report_number',
    );
    // No cost report is archived here: the last column is empty, the one before it the cost.
    const sum = lines.reduce((n, l) => n + Number(l.split(',').at(-2)), 0);
    totals.set(f.slice(0, -4), sum);
  }
  return totals;
}

async function exportAndState(secret: string, out: string, currency: string) {
  const argv = ['--endpoint', sim.url, '--secret-file', secret, '--out', out];
  expect(await main(['costs', ...argv, '--from', FROM, '--to', TO], {}, fakeIo())).toBe(0);
  const io = fakeIo();
  const code = await main(
    ['statements', '--month', MONTH, '--out', out, '--currency', currency, '--json'],
    {},
    io,
  );
  return { code, result: JSON.parse(io.out()) };
}

/** RFC 4180: quoted fields may hold commas, CRLF and doubled quotes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (quoted && c === '"') {
      quoted = false;
    } else if (quoted || (c !== '"' && c !== ',' && c !== '\r')) {
      field += c;
    } else if (c === '"') {
      quoted = true;
    } else if (c === ',') {
      row.push(field);
      field = '';
    } else {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++; // the LF of CRLF
    }
  }
  return rows;
}

describe('statements', () => {
  it.each(['USD', 'KRW'])(
    'adds up to the unified costs per workspace for a domain app, in %s',
    async (currency) => {
      const out = join(dir, `domain-${currency}`);

      const { code, result } = await exportAndState(secretFile, out, currency);

      const expected = truth(currency);
      const actual = await csvTotals(out);
      expect(code).toBe(0);
      expect(result.statements.length).toBe(expected.size);
      expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
      for (const [ws, total] of expected) expect(Math.abs(actual.get(ws)! - total)).toBeLessThan(0.01);
    },
  );

  it('writes only its own workspace for a workspace app', async () => {
    const workspaceId = sim.workspaceIds()[0]!;
    const secret = join(dir, 'workspace.json');
    await writeFile(secret, consoleAppJson(sim.issueToken({ role: 'WORKSPACE_OWNER', workspaceId })));
    const out = join(dir, 'workspace');

    const { code } = await exportAndState(secret, out, 'USD');

    const actual = await csvTotals(out);
    expect(code).toBe(0);
    expect([...actual.keys()]).toEqual([workspaceId]);
    expect(Math.abs(actual.get(workspaceId)! - truth('USD', workspaceId).get(workspaceId)!)).toBeLessThan(
      0.01,
    );
  });

  it('shows the total with 2 decimals, the rates and their source, and the month status in the HTML', async () => {
    const out = join(dir, 'domain-USD');
    const workspaceId = sim.workspaceIds()[0]!;

    const html = await readFile(
      join(out, 'statements', `billed_month=${MONTH}`, `${workspaceId}.html`),
      'utf8',
    );

    const total = truth('USD', workspaceId).get(workspaceId)!;
    expect(html).toContain(
      `${total.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })} USD`,
    );
    expect(html).toMatch(/<li>1 KRW = [0-9.e-]+ USD<\/li>/);
    expect(html).toMatch(/source: [^)]+\)/);
    expect(html).toMatch(/confirmed by Cloudforet|not confirmed yet/);
  });

  it('names projects from the newest inventory snapshot when there is one', async () => {
    const out = join(dir, 'domain-USD');
    const argv = ['--endpoint', sim.url, '--secret-file', secretFile, '--out', out];
    expect(await main(['inventory', ...argv], {}, fakeIo())).toBe(0);

    expect(await main(['statements', '--month', MONTH, '--out', out], {}, fakeIo())).toBe(0);

    const projects = new Map(sim.records('projects').map((p) => [String(p.project_id), String(p.name)]));
    const folder = join(out, 'statements', `billed_month=${MONTH}`);
    const csv = await readFile(join(folder, `${sim.workspaceIds()[0]}.csv`), 'utf8');
    const named = parseCsv(csv)
      .slice(1)
      .filter((fields) => fields[1]!.startsWith('project-'));
    expect(named.length).toBeGreaterThan(0);
    for (const fields of named) expect(fields[2]).toBe(projects.get(fields[1]!));
  });

  it('refuses a bad month and a month with no unified costs, exit 2', async () => {
    const bad = fakeIo();
    const none = fakeIo();

    const codes = [
      await main(['statements', '--month', '2026-13', '--out', dir], {}, bad),
      await main(['statements', '--month', '2001-01', '--out', join(dir, 'domain-USD')], {}, none),
    ];

    expect(codes).toEqual([2, 2]);
    expect(bad.err()).toContain('--month must be a month as "YYYY-MM", or "this-month"');
    expect(none.err()).toContain('no unified costs of 2001-01');
  });
});
