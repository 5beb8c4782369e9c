// Superseded objects are kept for good (issue 49): no lifecycle rule of the bucket deletes the bytes
// under a revisions folder or the revisions ledger, for the shared prefix and every tenant's, and
// each revisions table and the ledger table over them is in the Glue catalog.
import { describe, expect, it } from 'vitest';
import { revisionKey } from '../../../functions/lib/destination/layout.ts';
import { revisionTables } from '../../../functions/lib/tables/revisions.ts';
import { type Json, synth as synthSingle, synthStack } from '../../support/synth-stack.ts';

const TENANTS = ['acme', 'globex'];
const TENANT_SETTINGS = TENANTS.map((id) => ({
  id,
  endpoint: `https://${id}.example.com`,
  secretName: `cloudforet/${id}`,
}));

interface Rule {
  readonly Id: string;
  readonly Status: string;
  readonly Prefix?: string;
  readonly ExpirationInDays?: number;
  readonly ExpirationDate?: string;
  readonly NoncurrentVersionExpiration?: unknown;
}

/**
 * Whether a rule deletes a current object under `key`: an expiration of current versions whose
 * prefix covers the key. Expiring noncurrent versions deletes no revision: a revision is written once
 * under a name its bytes choose and never overwritten, so it has no noncurrent version to lose.
 */
function deletesCurrent(rule: Rule, key: string): boolean {
  const expires = rule.ExpirationInDays !== undefined || rule.ExpirationDate !== undefined;
  return rule.Status === 'Enabled' && expires && key.startsWith(rule.Prefix ?? '');
}

/** Keys the revisions of each table and the revisions ledger are written under, for a destination prefix. */
function revisionKeys(prefix: string): string[] {
  return [
    `${prefix}/${revisionKey('costs/billed_date=2026-09-10/ds-1.parquet', 'a'.repeat(64))}`,
    `${prefix}/${revisionKey('focus/x_billing_period=2026-09/x_charge_day=10/ds-1.parquet', 'b'.repeat(64))}`,
    `${prefix}/${revisionKey('unified_costs/billed_month=2026-09/domain.parquet', 'c'.repeat(64))}`,
    `${prefix}/${revisionKey('costs_monthly/billed_month=2026-09/ds-1.parquet', 'd'.repeat(64))}`,
    `${prefix}/${revisionKey('focus_monthly/x_billing_period=2026-09/ds-1.parquet', 'e'.repeat(64))}`,
    `${prefix}/ledger/revisions/superseded_date=2026-10-03/costs~billed_date=2026-09-10~ds-1~1-ab.json`,
  ];
}

describe('revision bytes are kept for good', () => {
  const synth = synthStack({ tenants: TENANT_SETTINGS });
  const buckets = synth.template.findResources('AWS::S3::Bucket') as Record<string, { Properties: Json }>;
  const [bucket] = Object.values(buckets);
  const rules = (bucket!.Properties.LifecycleConfiguration as { Rules: Rule[] }).Rules;
  const keys = [
    ...revisionKeys('cloudforet'),
    ...TENANTS.flatMap((id) => revisionKeys(`cloudforet/tenants/${id}`)),
  ];

  it('no lifecycle rule deletes a revision or a revisions ledger line, shared or any tenant', () => {
    const deleting = rules.flatMap((rule) =>
      keys.filter((k) => deletesCurrent(rule, k)).map((k) => `${rule.Id} ${k}`),
    );

    expect(rules.length).toBeGreaterThan(3);
    expect(deleting).toEqual([]);
  });

  it('the check sees a rule that would delete them', () => {
    const planted: Rule[] = [
      { Id: 'expire-all', Status: 'Enabled', ExpirationInDays: 365 },
      { Id: 'expire-costs-revisions', Status: 'Enabled', Prefix: 'cloudforet/costs_', ExpirationInDays: 90 },
    ];

    expect(planted.map((rule) => keys.filter((k) => deletesCurrent(rule, k)).length)).toEqual([18, 2]);
  });

  it('every revisions table and the revisions ledger is a Glue table under the destination', () => {
    const tables = Object.values(synthSingle().findResources('AWS::Glue::Table')).map(
      (t) =>
        (t as { Properties: { TableInput: { Name: string; StorageDescriptor: { Location: unknown } } } })
          .Properties.TableInput,
    );
    const names = tables.map((t) => t.Name);

    for (const table of revisionTables) expect(names).toContain(table.name);
    expect(names).toContain('revisions');
    const costs = tables.find((t) => t.Name === 'costs_revisions')!;
    expect(JSON.stringify(costs.StorageDescriptor.Location)).toContain('/cloudforet/costs_revisions/');
  });

  it("focus_revisions is no table CID's discovery takes for FOCUS: BilledCost named otherwise, read by position", () => {
    const input = Object.values(synthSingle().findResources('AWS::Glue::Table'))
      .map((t) => (t as { Properties: { TableInput: Json } }).Properties.TableInput)
      .find((t) => t.Name === 'focus_revisions') as {
      StorageDescriptor: { Columns: Array<{ Name: string }>; SerdeInfo: { Parameters: Json } };
    };
    const columns = input.StorageDescriptor.Columns.map((c) => c.Name);

    expect(columns[0]).toBe('x_BilledCost');
    expect(columns).not.toContain('BilledCost');
    expect(input.StorageDescriptor.SerdeInfo.Parameters['parquet.column.index.access']).toBe('true');
  });
});
