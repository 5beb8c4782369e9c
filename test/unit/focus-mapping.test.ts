// The FOCUS value mappings (docs/focus.md): every plugin charge type the tables name, the
// fallback when a plugin names none, frequencies, service categories and Key-Value tags.
import { describe, expect, it } from 'vitest';
import {
  CHARGE_CATEGORIES,
  chargeCategoryOf,
  chargeFrequencyOf,
  serviceCategoryOf,
} from '../../functions/lib/focus/rows/mapping.ts';
import { focusTags } from '../../functions/lib/tables/focus.ts';

/** FOCUS 1.2/1.3 ChargeCategory and ServiceCategory allowed values. */
const CHARGE_CATEGORY_VALUES = ['Usage', 'Purchase', 'Tax', 'Credit', 'Adjustment'];
const SERVICE_CATEGORY_VALUES = [
  'AI and Machine Learning',
  'Analytics',
  'Business Applications',
  'Compute',
  'Databases',
  'Developer Tools',
  'Multicloud',
  'Identity',
  'Integration',
  'Internet of Things',
  'Management and Governance',
  'Media',
  'Migration',
  'Mobile',
  'Networking',
  'Security',
  'Storage',
  'Web',
  'Other',
];

describe('FOCUS value mappings', () => {
  it.each([
    ['aws', { 'Line Item Type': 'SavingsPlanCoveredUsage' }, 5, 'Usage', 'Usage-Based'],
    ['aws', { 'Line Item Type': 'RIFee' }, 5, 'Purchase', 'Recurring'],
    ['aws', { 'Line Item Type': 'SavingsPlanUpfrontFee' }, 5, 'Purchase', 'One-Time'],
    ['aws', { 'Line Item Type': 'Tax' }, 5, 'Tax', 'One-Time'],
    ['aws', { 'Line Item Type': 'EdpDiscount' }, -5, 'Credit', 'One-Time'],
    ['azure', { 'Charge Type': 'Unused Reservation' }, 5, 'Usage', 'Usage-Based'],
    ['azure', { 'Charge Type': 'Refund' }, -5, 'Credit', 'One-Time'],
    ['azure', { 'Charge Type': 'RoundingAdjustment' }, 0.01, 'Adjustment', 'One-Time'],
    ['google_cloud', { 'Cost Type': 'rounding_error' }, 0.01, 'Adjustment', 'One-Time'],
    ['google_cloud', { 'Cost Type': 'regular' }, 5, 'Usage', 'Usage-Based'],
  ])('%s %j -> %s', (_provider, info, cost, category, frequency) => {
    const mapped = chargeCategoryOf(info, cost);

    expect(mapped).toMatchObject({ category, basis: 'plugin' });
    expect(chargeFrequencyOf(mapped.category, mapped.pluginValue)).toBe(frequency);
  });

  it('infers from the sign when the plugin names no charge type (or one the tables do not know)', () => {
    expect(chargeCategoryOf({ 'Instance Type': 'm5.large' }, 3)).toEqual({
      category: 'Usage',
      basis: 'inferred',
    });
    expect(chargeCategoryOf(undefined, -3)).toEqual({ category: 'Credit', basis: 'inferred' });
    expect(chargeCategoryOf({ 'Charge Type': 'SomethingNew' }, 3).basis).toBe('inferred');
  });

  it('maps only to values FOCUS allows', () => {
    for (const category of Object.values(CHARGE_CATEGORIES))
      expect(CHARGE_CATEGORY_VALUES).toContain(category);
    for (const product of ['AmazonEC2', 'BigQuery', 'Key Vault', 'Something Else', null]) {
      expect(SERVICE_CATEGORY_VALUES).toContain(serviceCategoryOf(product));
    }
  });

  it('writes tags as a map of strings: other values as their JSON text, null kept, none as NULL', () => {
    expect(focusTags('{"env":"prod","cost":3,"on":true,"off":null}')).toEqual({
      env: 'prod',
      cost: '3',
      on: 'true',
      off: null,
    });
    expect(focusTags('{"env":"prod","meta":{"a":1},"list":["x"]}')).toEqual({
      env: 'prod',
      meta: '{"a":1}',
      list: '["x"]',
    });
    // A key the language treats specially is a tag like any other.
    expect(Object.entries(focusTags('{"__proto__":"x","constructor":null,"env":"prod"}')!)).toEqual([
      ['__proto__', 'x'],
      ['constructor', null],
      ['env', 'prod'],
    ]);
    expect(Object.entries(focusTags('{"__proto__":null}')!)).toEqual([['__proto__', null]]);
    expect(focusTags('{"":"no key"}')).toBeNull();
    expect(focusTags('{}')).toBeNull();
    expect(focusTags(null)).toBeNull();
    expect(focusTags('not json')).toBeNull();
  });
});
