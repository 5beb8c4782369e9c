// What change detection compares for a cost day (costs/sources/fingerprint.ts): row count and cost
// sum per (project, workspace, service account), insensitive to row order and rounding noise.
import { describe, expect, it } from 'vitest';
import {
  attributionKey,
  FingerprintBuilder,
  sameGroups,
  sameSum,
} from '../../functions/lib/costs/sources/fingerprint.ts';

const row = (project: string, cost: number, extra: Record<string, unknown> = {}) => ({
  project_id: project,
  workspace_id: 'workspace-1',
  service_account_id: 'sa-1',
  cost,
  ...extra,
});

describe('fingerprints of a cost day', () => {
  it('keys a row by project, workspace and service account, an absent one as empty', () => {
    expect(attributionKey(row('project-a', 1))).toBe('project-a|workspace-1|sa-1');
    expect(attributionKey({ workspace_id: 'workspace-2', project_id: 7 })).toBe('|workspace-2|');
  });

  it('adds rows and costs per attribution, across pages, sorted by key', () => {
    const builder = new FingerprintBuilder();

    builder.add([row('project-b', 1.5), row('project-a', 2)]);
    builder.add([row('project-b', 0.25), row('project-a', 'n/a' as unknown as number)]);

    expect(builder.build()).toEqual([
      { key: 'project-a|workspace-1|sa-1', rows: 2, costSum: 2 },
      { key: 'project-b|workspace-1|sa-1', rows: 2, costSum: 1.75 },
    ]);
  });

  it('keys groups as attributionKey keys their rows: absent and odd fields, virtual workspaces', () => {
    const workspaceOf = new Map([
      ['v-workspace-1', 'workspace-9'],
      ['v-workspace-2', undefined],
    ]);
    const rows = [
      row('project-a', 1, { workspace_id: 'v-workspace-1' }),
      row('project-a', 2, { workspace_id: 'v-workspace-2' }),
      { project_id: 7, workspace_id: 'workspace-1', cost: 3 },
      { service_account_id: 'sa-2', cost: 4 },
      row('project-a', 5, { workspace_id: 'workspace-9' }),
    ];
    const builder = new FingerprintBuilder(workspaceOf);
    builder.add(rows);
    const keys = [...new Set(rows.map((r) => attributionKey(r, workspaceOf)))].sort();
    expect(builder.build().map((g) => g.key)).toEqual(keys);
    expect(builder.build().find((g) => g.key === 'project-a|workspace-9|sa-1')).toEqual({
      key: 'project-a|workspace-9|sa-1',
      rows: 2,
      costSum: 6,
    });
  });

  it('sees rows moved between projects, though the day keeps its count and sum', () => {
    const before = new FingerprintBuilder();
    before.add([row('project-a', 1), row('project-a', 2)]);
    const after = new FingerprintBuilder();
    after.add([row('project-a', 1), row('project-b', 2)]);

    expect(sameGroups(before.build(), after.build())).toBe(false);
  });

  it('takes the same rows re-inserted in another order (new ids, new job) as unchanged', () => {
    const costs = [0.1, 0.2, 0.3, 1e-7, 12345.678];
    const first = new FingerprintBuilder();
    first.add(costs.map((c, i) => row('project-a', c, { cost_id: `cost-${i}`, job_id: 'job-1' })));
    const second = new FingerprintBuilder();
    second.add(
      [...costs].reverse().map((c, i) => row('project-a', c, { cost_id: `new-${i}`, job_id: 'job-2' })),
    );

    expect(sameGroups(first.build(), second.build())).toBe(true);
  });

  it('tells a sum off in the last bits from one off by a cent', () => {
    expect(sameSum(0.1 + 0.2, 0.3)).toBe(true);
    expect(sameSum(1e12, 1e12 + 1)).toBe(true);
    expect(sameSum(100, 100.01)).toBe(false);
    expect(sameSum(0, 2e-6)).toBe(false);
  });
});
