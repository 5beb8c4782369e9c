// The FOCUS conformance runner (tools/focus/) over synthetic Parquet shaped like the `focus` table
// (test/support/focus-fixture.ts): the conformant fixture breaks no MUST of the FOCUS 1.2
// requirements model or of the supplementary 1.3 rules, and each mutation breaks the rule named,
// so the runner is shown able to fail.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudforetApplicability } from '../../../tools/focus/applicability.ts';
import {
  type ConformanceReport,
  checkFocusConformance,
  formatCounts,
  notAppliedList,
} from '../../../tools/focus/conformance.ts';
import { datasetRules, loadModel } from '../../../tools/focus/model.ts';
import { supplementaryRules } from '../../../tools/focus/supplementary.ts';
import { dropColumn, replaceColumn, writeFocusFixture } from '../../support/focus-fixture.ts';

let dir: string;
let fixtures = 0;

/** Writes the fixture (changed by `edit`) to its own folder and checks it. */
async function check(edit?: Parameters<typeof writeFocusFixture>[1]): Promise<ConformanceReport> {
  const glob = await writeFocusFixture(join(dir, `focus-${++fixtures}`), edit);
  return checkFocusConformance({ parquetGlob: glob });
}

function status(report: ConformanceReport, id: string): string | undefined {
  return report.rules.find((r) => r.id === id)?.status;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'focus-conformance-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('FOCUS conformance of the focus table', () => {
  let report: ConformanceReport;

  beforeAll(async () => {
    report = await check();
  });

  it('passes every applicable MUST of the model and of the supplementary rules', () => {
    console.log(formatCounts('FOCUS 1.2 model', report.countsBySource.model));
    console.log(
      formatCounts('supplementary (1.3 columns, static parts)', report.countsBySource.supplementary),
    );
    for (const w of report.warnings) console.log(`SHOULD-level warning: ${w.id}: ${w.reason}`);
    expect(report.failures.map((f) => `${f.id}: ${f.reason} ${JSON.stringify(f.samples)}`)).toEqual([]);
    expect(report.counts.failed).toBe(0);
    expect(report.rows).toBe(360);
  });

  it('evaluates the rules that concern the columns it writes', () => {
    const passed = new Set(report.rules.filter((r) => r.status === 'pass').map((r) => r.id));
    for (const id of [
      'ChargeCategory-C-002-M',
      'ChargeCategory-C-003-M',
      'BillingCurrency-C-006-M',
      'ContractedCost-C-003-M',
      'ListCost-C-003-M',
      'BilledCost-C-001-M',
      'PricingQuantity-C-004-C',
      'PricingQuantity-C-005-C',
      'ConsumedQuantity-C-004-C',
      'EffectiveCost-C-005-C',
      'ServiceName-C-005-C',
      'Tags-C-001-M',
      'RegionName-C-005-C',
      'SubAccountName-C-005-C',
      'FOCUS13-ServiceProviderName-NotNull',
      'Static-ColumnHandling-A-010-M',
    ]) {
      expect(passed.has(id), id).toBe(true);
    }
    // The RECOMMENDED columns Cloudforet cannot fill are reported, not failed.
    expect(report.warnings.map((w) => w.id).sort()).toEqual([
      'CostAndUsage-D-003-C',
      'CostAndUsage-D-033-O',
      'CostAndUsage-D-042-O',
    ]);
  });

  it('gives every rule of the dataset a result, and a reason to each one not applied', () => {
    const model = loadModel();
    const ids = datasetRules(model);
    expect(report.rules.map((r) => r.id)).toEqual([...ids, ...supplementaryRules.map((r) => r.id)]);
    const counts = report.counts;
    expect(counts.applied + counts.notApplicable + counts.notEvaluated).toBe(counts.rules);
    for (const r of report.rules.filter(
      (r) => r.status === 'not-applicable' || r.status === 'not-evaluated',
    )) {
      expect(r.reason, r.id).toBeTruthy();
    }
  });

  it('keeps the checked-in list of rules not applied, and why, up to date', async () => {
    await expect(notAppliedList(report)).toMatchFileSnapshot('../../../tools/focus/not-applied-1.2.md');
  });
});

describe('the runner fails what breaks a rule', () => {
  const cases: Array<[string, Parameters<typeof writeFocusFixture>[1], string[]]> = [
    [
      'ChargeCategory NULL on one row',
      replaceColumn('ChargeCategory', `CASE WHEN i = 42 THEN NULL ELSE 'Usage' END`),
      ['ChargeCategory-C-002-M'],
    ],
    [
      "BillingCurrency 'usd'",
      replaceColumn('BillingCurrency', `CASE WHEN i = 7 THEN 'usd' ELSE 'USD' END`),
      ['BillingCurrency-C-003-M', 'BillingCurrency-C-006-M'],
    ],
    [
      "BillingCurrency 'XXX' (ISO 4217, but no national currency)",
      replaceColumn('BillingCurrency', `CASE WHEN i = 7 THEN 'XXX' ELSE 'KRW' END`),
      ['BillingCurrency-C-006-M'],
    ],
    [
      'ContractedCost NULL',
      replaceColumn('ContractedCost', 'NULL::DOUBLE'),
      ['ContractedCost-C-003-M', 'ContractedCost-C-004-M'],
    ],
    [
      'ChargePeriodEnd not after ChargePeriodStart',
      replaceColumn(
        'ChargePeriodEnd',
        `CASE WHEN i = 11 THEN (DATE '2026-10-28' + (i % 9)::INTEGER)::TIMESTAMPTZ ` +
          `ELSE (DATE '2026-10-28' + (i % 9)::INTEGER + 1)::TIMESTAMPTZ END`,
      ),
      ['Static-ChargePeriodEnd-C-004-M'],
    ],
    ['BilledCost as VARCHAR', replaceColumn('BilledCost', `'12.5'`), ['BilledCost-C-001-M']],
    ['a mandatory column missing', dropColumn('InvoiceIssuerName'), ['CostAndUsage-D-023-M']],
    [
      'Tags not a JSON object',
      replaceColumn(
        'Tags',
        `CASE i % 3 WHEN 0 THEN '["env"]' WHEN 1 THEN '{"env": {"nested": 1}}' ELSE NULL END`,
      ),
      ['Tags-C-001-M'],
    ],
    [
      'a custom column without the x_ prefix',
      (columns) => [...columns, ['billing_period', `'2026-11'`]],
      ['Static-ColumnHandling-A-010-M'],
    ],
    [
      'an empty string for a missing value',
      replaceColumn('SubAccountName', `''`),
      ['Static-NullHandling-A-002-M'],
    ],
    [
      'ServiceProviderName NULL',
      replaceColumn('ServiceProviderName', 'NULL::VARCHAR'),
      ['FOCUS13-ServiceProviderName-NotNull'],
    ],
  ];

  it.each(cases)('%s', async (_name, edit, expected) => {
    const mutated = await check(edit);
    for (const id of expected) {
      const failure = mutated.failures.find((f) => f.id === id);
      expect(failure, `${id} fails (${status(mutated, id)})`).toBeDefined();
      expect(failure!.violations).toBeGreaterThan(0);
      expect(failure!.samples?.length).toBeGreaterThan(0);
    }
  });
});

describe('applicability', () => {
  it('declares every criterion of the model, with a reason', () => {
    const model = loadModel();
    expect(Object.keys(cloudforetApplicability).sort()).toEqual(
      Object.keys(model.ApplicabilityCriteria).sort(),
    );
    for (const [name, criterion] of Object.entries(cloudforetApplicability))
      expect(criterion.reason, name).not.toBe('');
  });

  it('refuses a model with a criterion not declared', async () => {
    const model = loadModel();
    const newer = {
      ...model,
      ApplicabilityCriteria: { ...model.ApplicabilityCriteria, NEW_IN_13: { Description: 'x' } },
    };
    await expect(
      checkFocusConformance({ parquetGlob: join(dir, 'none', '*.parquet'), model: newer }),
    ).rejects.toThrow(/NEW_IN_13/);
  });
});
