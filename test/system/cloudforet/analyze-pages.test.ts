// Paging an analyze verb ({results, more}, no total_count) against the simulator's budget usage.
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeBody, analyzePages } from '../../../functions/lib/cloudforet/analyze-pages.ts';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { budgetUsageAnalyze } from '../../../functions/lib/tables/budgets.ts';
import { type Simulator, startSimulator } from '../../../harness/simulator/index.ts';

describe('analyzePages', () => {
  let sim: Simulator;
  let client: CloudforetClient;
  const dispatcher = new Agent();

  beforeAll(async () => {
    sim = await startSimulator({
      seed: 5,
      dataSources: 3,
      from: '2026-04-20',
      to: '2026-07-10',
      rowsPerDay: 5,
    });
    client = new CloudforetClient({
      endpoint: sim.url,
      token: sim.issueToken(),
      dispatcher,
      credentialSource: 'test',
    });
  });
  afterAll(async () => {
    await sim.close();
    await dispatcher.close();
  });

  it('pages until more is false, in order, each usage row once', async () => {
    const pages: number[] = [];
    const rows: Record<string, unknown>[] = [];

    for await (const page of analyzePages(client, { ...budgetUsageAnalyze, pageLimit: 7 })) {
      pages.push(page.length);
      rows.push(...page);
    }

    const truth = sim.budgetUsageRecords();
    expect(truth).toHaveLength(20);
    expect(pages).toEqual([7, 7, 6]);
    expect(rows.map((r) => `${r.budget_id}/${r.date}`)).toEqual(
      truth.map((t) => `${t.budget_id}/${t.date}`).sort(),
    );
  });

  it('asks for group_by, fields, sort and a page, and nothing else', () => {
    expect(analyzeBody(budgetUsageAnalyze, 8, 7)).toEqual({
      query: {
        group_by: budgetUsageAnalyze.groupBy,
        fields: { cost: { key: 'cost', operator: 'sum' }, limit: { key: 'limit', operator: 'sum' } },
        sort: [
          { key: 'budget_id', desc: false },
          { key: 'date', desc: false },
        ],
        page: { start: 8, limit: 7 },
      },
    });
  });
});
