// Rules checked beside the model's, kept apart from it and few:
// - what FOCUS 1.3 adds that the `focus` table carries, from the only 1.3 text this repository can
//   read offline (the 1.3 requirements model is a release asset of FOCUS_Spec, not in the mirrors);
// - static parts of 1.2 rules the model marks Dynamic, where the data alone decides them.
// When model-1.3.json is vendored, the 1.3 ones here should go: the model will have its own.
import type { Check } from './model.ts';

/** Where the 1.3 draft text comes from (FinOps-Open-Cost-and-Usage-Spec/FOCUS_Spec, mirrored). */
export const FOCUS_13_DRAFT = {
  repository: 'FinOps-Open-Cost-and-Usage-Spec/FOCUS_Spec',
  ref: 'refs/pull/1138/head',
  commit: '4052c7c8b26a1f3d02f2fb7492f9eeb05229896b',
  files: [
    'specification/columns/serviceprovider.md',
    'specification/columns/hostprovider.md',
    'specification/columns/publisher.md',
  ],
  note:
    'A March 2025 draft whose Column IDs are ServiceProvider and HostProvider; ratified 1.3 names them ' +
    'ServiceProviderName and HostProviderName (issue 26), which is what is checked.',
} as const;

export interface SupplementaryRule {
  id: string;
  keyword: 'MUST' | 'MUST NOT' | 'SHOULD' | 'MAY';
  requirement: string;
  /** The text and place the rule comes from. */
  source: string;
  check:
    | { kind: 'model-check'; requirement: Check }
    | { kind: 'sql'; violation: string; columns: string[] }
    | { kind: 'deprecated-column'; column: string }
    | { kind: 'custom-columns' }
    | { kind: 'present-where-clouds-support' }
    | { kind: 'empty-strings' };
}

/** Columns FOCUS 1.3 adds that the `focus` table carries: string columns, checked below. */
export const FOCUS_13_STRING_COLUMNS = ['ServiceProviderName', 'HostProviderName'];

const serviceProvider = `${FOCUS_13_DRAFT.ref}:${FOCUS_13_DRAFT.files[0]}`;
const hostProvider = `${FOCUS_13_DRAFT.ref}:${FOCUS_13_DRAFT.files[1]}`;
const publisher = `${FOCUS_13_DRAFT.ref}:${FOCUS_13_DRAFT.files[2]}`;

export const supplementaryRules: SupplementaryRule[] = [
  {
    id: 'FOCUS13-ServiceProviderName-Present',
    keyword: 'MUST',
    requirement: 'The Service Provider column MUST be present in a FOCUS dataset.',
    source: serviceProvider,
    check: {
      kind: 'model-check',
      requirement: { CheckFunction: 'ColumnPresent', ColumnName: 'ServiceProviderName' },
    },
  },
  {
    id: 'FOCUS13-ServiceProviderName-Type',
    keyword: 'MUST',
    requirement: 'This column MUST be of type String',
    source: serviceProvider,
    check: {
      kind: 'model-check',
      requirement: { CheckFunction: 'TypeString', ColumnName: 'ServiceProviderName' },
    },
  },
  {
    id: 'FOCUS13-ServiceProviderName-NotNull',
    keyword: 'MUST NOT',
    requirement: '... and MUST NOT contain null values.',
    source: serviceProvider,
    check: {
      kind: 'model-check',
      requirement: { CheckFunction: 'CheckNotValue', ColumnName: 'ServiceProviderName', Value: null },
    },
  },
  {
    id: 'FOCUS13-HostProviderName-Present',
    keyword: 'MUST',
    requirement: 'The HostProvider column MUST be present in a FOCUS dataset',
    source: hostProvider,
    check: {
      kind: 'model-check',
      requirement: { CheckFunction: 'ColumnPresent', ColumnName: 'HostProviderName' },
    },
  },
  {
    // The draft lets HostProvider be null "when a line item does not pertain to a resource or
    // services with a specific host provider, such as purchases, refunds, or taxes": no not-null rule.
    id: 'FOCUS13-HostProviderName-Type',
    keyword: 'MUST',
    requirement: 'This column MUST be of type String and MAY contain null values when ...',
    source: hostProvider,
    check: {
      kind: 'model-check',
      requirement: { CheckFunction: 'TypeString', ColumnName: 'HostProviderName' },
    },
  },
  {
    id: 'FOCUS13-ProviderName-Deprecated',
    keyword: 'MAY',
    requirement:
      'ProviderName is deprecated in 1.3 (replaced by ServiceProviderName; provider.md is gone from the ' +
      'draft) and removed in 1.4; a 1.3 dataset may still carry it.',
    source: `${FOCUS_13_DRAFT.ref} (no specification/columns/provider.md)`,
    check: { kind: 'deprecated-column', column: 'ProviderName' },
  },
  {
    id: 'FOCUS13-PublisherName-Deprecated',
    keyword: 'MAY',
    requirement: '# Publisher - DEPRECATED (removed in 1.4); a 1.3 dataset may still carry it.',
    source: publisher,
    check: { kind: 'deprecated-column', column: 'PublisherName' },
  },
  {
    id: 'Static-ChargePeriodEnd-C-004-M',
    keyword: 'MUST',
    requirement:
      'ChargePeriodEnd MUST be the exclusive end bound of the effective period of the charge: so it is ' +
      'after ChargePeriodStart (the model marks the rule Dynamic; this part needs only the row).',
    source: 'model-1.2.json ChargePeriodEnd-C-004-M',
    check: {
      kind: 'sql',
      violation: '"ChargePeriodEnd" <= "ChargePeriodStart"',
      columns: ['ChargePeriodStart', 'ChargePeriodEnd'],
    },
  },
  {
    id: 'Static-ListCost-C-008-C',
    keyword: 'MUST',
    requirement:
      'When ListUnitPrice is null, ListCost of a charge unrelated to other charges MUST match the ' +
      'BilledCost (the model applies ListCost-C-006-C only with PUBLIC_PRICE_LIST_SUPPORTED; the ' +
      'data alone decides it for every row but Tax, which is calculated on other charges).',
    source: 'model-1.2.json ListCost-C-006-C, ListCost-C-008-C',
    check: {
      kind: 'sql',
      violation:
        '"ListUnitPrice" IS NULL AND "ChargeCategory" <> \'Tax\' AND "ListCost" IS DISTINCT FROM "BilledCost"',
      columns: ['ListUnitPrice', 'ChargeCategory', 'ListCost', 'BilledCost'],
    },
  },
  {
    id: 'Static-BillingPeriodEnd-C-004-M',
    keyword: 'MUST',
    requirement:
      'BillingPeriodEnd MUST be the exclusive end bound of the billing period: so it is after ' +
      'BillingPeriodStart (Dynamic in the model; this part needs only the row).',
    source: 'model-1.2.json BillingPeriodEnd-C-004-M',
    check: {
      kind: 'sql',
      violation: '"BillingPeriodEnd" <= "BillingPeriodStart"',
      columns: ['BillingPeriodStart', 'BillingPeriodEnd'],
    },
  },
  {
    id: 'Static-NullHandling-A-002-M',
    keyword: 'MUST NOT',
    requirement:
      'Columns MUST NOT use empty strings ... to represent a null or not having a value: no FOCUS string ' +
      'column holds an empty or blank string (Dynamic in the model; placeholders like "N/A" are not looked for).',
    source: 'model-1.2.json NullHandling-A-002-M',
    check: { kind: 'empty-strings' },
  },
  {
    id: 'Static-ColumnHandling-A-010-M',
    keyword: 'MUST',
    requirement:
      'Custom columns MUST be prefixed with a consistent x_ prefix: every column that is not a FOCUS ' +
      'column (of the model, or of the 1.3 rules above) starts with x_, partition columns included.',
    source: 'model-1.2.json ColumnHandling-A-010-M',
    check: { kind: 'custom-columns' },
  },
  {
    id: 'Static-PresentWhereCloudsSupport',
    keyword: 'MUST',
    requirement:
      'Every column that "MUST be present in a FOCUS dataset when the provider supports" a concept AWS, ' +
      'Azure and Google Cloud support is present, NULL where Cloudforet has no value: the criteria ' +
      'applicability.ts declares unsupported for want of values but marks cloudsSupport.',
    source: 'model-1.2.json CostAndUsage-D-0xx-C (the presence rules), with tools/focus/applicability.ts',
    check: { kind: 'present-where-clouds-support' },
  },
];
