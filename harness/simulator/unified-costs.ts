// Unified costs as Cloudforet's unified-cost service builds them: the month's cost rows summed per
// (workspace, project, service account, data source, product, region, usage type), each sum in
// every supported currency at the month's rate. Rates are fixed per month from the seed, or
// Cloudforet's hard-coded defaults for months switched to them (its silent fallback).

import { costMonths, dayToDate, monthDays, todayNumber } from './calendar.ts';
import { dataSourceCurrency } from './data-source-records.ts';
import { hashInts, hashString, stableId } from './prng.ts';
import type { SimState } from './state.ts';
import type { ApiRecord, DataSource } from './world.ts';

export const CURRENCIES = ['KRW', 'USD', 'JPY'] as const;
export type Currency = (typeof CURRENCIES)[number];

/** cost-analysis' DEFAULT_EXCHANGE_RATES (global_conf.py), used when rate fetching fails. */
export const FALLBACK_RATES: Readonly<Record<string, number>> = {
  'KRW/USD': 0.0007156681922951203,
  'USD/KRW': 1398.6984203441723,
  'KRW/JPY': 0.10699169521856493,
  'JPY/KRW': 9.34880863101326,
  'USD/JPY': 149.73205030286636,
  'JPY/USD': 0.006686848624246231,
};

export const EXCHANGE_SOURCE = 'Yahoo! Finance';

/** The `FROM/TO` rates of a month; every pair of the supported currencies, 1 for a currency to itself. */
export function monthRates(state: SimState, month: string): Record<string, number> {
  if (state.fallbackRateMonths.has(month)) return { ...FALLBACK_RATES, ...identityRates() };
  const h = hashInts(state.world.seed, 91, hashString(month));
  const usdKrw = 1300 + (h % 20_000) / 100;
  const usdJpy = 140 + ((h >>> 16) % 2_000) / 100;
  return {
    ...identityRates(),
    'USD/KRW': usdKrw,
    'KRW/USD': 1 / usdKrw,
    'USD/JPY': usdJpy,
    'JPY/USD': 1 / usdJpy,
    'KRW/JPY': usdJpy / usdKrw,
    'JPY/KRW': usdKrw / usdJpy,
  };
}

function identityRates(): Record<string, number> {
  return Object.fromEntries(CURRENCIES.map((c) => [`${c}/${c}`, 1]));
}

/** A month is confirmed from day 15 of the next month (Cloudforet's default). */
export function isConfirmed(month: string, today = todayNumber()): boolean {
  const [, last] = monthDays(month) ?? [0, 0];
  return today >= last + 15;
}

interface Group {
  /** The group's first row in the order rows are read: its fields name the group. */
  readonly row: ApiRecord;
  readonly workspaceId: string;
  cost: number;
  usage: number;
}

/**
 * Each (data source, month)'s groups, summed once per cost-store epoch and account links: every
 * change to cost rows bumps the epoch, so the sums are those of the live rows. Only sums are kept;
 * the records (names, dates, rates, confirmation) are built at each call, as they depend on the
 * clock and on settings tests change.
 */
const sumsCache = new WeakMap<SimState, { epoch: number; groups: Map<string, Group[]> }>();

/** Every unified cost row of every month, built from the live cost rows; `month` keeps one month. */
// cost-analysis service/unified_cost_service.py list (DOMAIN_ADMIN, WORKSPACE_OWNER in Cloudforet).
export function unifiedCostRecords(state: SimState, month?: string): ApiRecord[] {
  return costMonths(state.world)
    .filter((m) => !state.missingUnifiedMonths.has(m) && (month === undefined || m === month))
    .flatMap((m) => state.world.dataSources.flatMap((ds) => monthRecords(state, ds, m)));
}

function monthRecords(state: SimState, ds: DataSource, month: string): ApiRecord[] {
  const rates = monthRates(state, month);
  const origin = dataSourceCurrency(ds) ?? 'USD';
  return monthGroups(state, ds, month).map(({ row, workspaceId, cost, usage }) => {
    const record = groupRecord(state, ds, row, workspaceId, month);
    const converted = Object.fromEntries(CURRENCIES.map((c) => [c, cost * (rates[`${origin}/${c}`] ?? 0)]));
    const out: ApiRecord = { unified_cost_id: record['unified_cost_id'], cost: converted };
    if (usage !== 0) out['usage_quantity'] = usage;
    return { ...out, ...record };
  });
}

function monthGroups(state: SimState, ds: DataSource, month: string): Group[] {
  let cache = sumsCache.get(state);
  if (!cache || cache.epoch !== state.costs.epoch) {
    cache = { epoch: state.costs.epoch, groups: new Map() };
    sumsCache.set(state, cache);
  }
  const links = ds.accounts.map((a) => `${a.vWorkspaceId}>${a.linked ? a.workspaceId : ''}`).join(',');
  const key = `${ds.id}|${month}|${links}`;
  let found = cache.groups.get(key);
  if (!found) {
    found = sumMonth(state, ds, month);
    cache.groups.set(key, found);
  }
  return found;
}

function sumMonth(state: SimState, ds: DataSource, month: string): Group[] {
  const [first, last] = monthDays(month) ?? [0, -1];
  const groups = new Map<string, Group>();
  const realWorkspace = new Map(ds.accounts.map((a) => [a.vWorkspaceId, a.linked ? a.workspaceId : null]));
  for (const day of state.costs.candidateDays(ds)) {
    if (day < first || day > last) continue;
    for (const row of state.costs.records(ds, day)) {
      const rowWorkspace = row['workspace_id'] as string;
      // Rows of unlinked routed accounts are in no unified cost (as in Cloudforet).
      const workspaceId = ds.routed ? realWorkspace.get(rowWorkspace) : rowWorkspace;
      if (!workspaceId) continue;
      const key = [workspaceId, row['project_id'], row['service_account_id'], row['product']]
        .concat([row['region_code'], row['usage_type'], row['usage_unit']])
        .join('|');
      let group = groups.get(key);
      if (!group) {
        group = { row, workspaceId, cost: 0, usage: 0 };
        groups.set(key, group);
      }
      group.cost += typeof row['cost'] === 'number' ? row['cost'] : 0;
      group.usage += typeof row['usage_quantity'] === 'number' ? row['usage_quantity'] : 0;
    }
  }
  return [...groups.values()];
}

function groupRecord(
  state: SimState,
  ds: DataSource,
  row: ApiRecord,
  workspaceId: string,
  month: string,
): ApiRecord {
  const { world } = state;
  const today = todayNumber();
  const confirmed = isConfirmed(month, today);
  const [, last] = monthDays(month) ?? [0, 0];
  const account = ds.accounts.find((a) => a.serviceAccountId === row['service_account_id']);
  const workspace = world.workspaces.find((w) => w['workspace_id'] === workspaceId);
  const projectId = row['project_id'] as string | undefined;
  const key = `${ds.id}|${workspaceId}|${projectId}|${row['service_account_id']}|${row['product']}|${row['region_code']}|${row['usage_type']}`;
  const record: ApiRecord = {
    unified_cost_id: stableId('unified-cost', world.seed, month, hashString(key)),
    billed_month: month,
    billed_year: month.slice(0, 4),
    // A confirmed month is aggregated once more on the day it is confirmed, then left alone.
    aggregation_date: dayToDate(confirmed ? last + 15 : today),
    exchange_date: dayToDate(confirmed ? last : Math.min(today - 1, last)),
    exchange_source: EXCHANGE_SOURCE,
    currency: dataSourceCurrency(ds) ?? 'USD',
    is_confirmed: confirmed || undefined,
    provider: row['provider'],
    region_code: row['region_code'],
    region_key: row['region_key'],
    product: row['product'],
    usage_type: row['usage_type'],
    usage_unit: row['usage_unit'],
    service_account_name: account?.name,
    data_source_name: `${ds.provider} cost ${ds.index + 1}`,
    // Cloudforet falls back to the id when it has no project name at hand.
    project_name: projectId,
    workspace_name: workspace?.['name'],
    service_account_id: row['service_account_id'],
    data_source_id: ds.id,
    project_id: projectId,
    workspace_id: workspaceId,
    domain_id: world.domainId,
    created_at: `${dayToDate(today)}T00:00:00.000Z`,
  };
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined && v !== null));
}
