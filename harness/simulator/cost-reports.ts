// Cost reports as Cloudforet's cost-analysis builds them (cost-analysis d287a87): one config, two
// adjustment policies (a PERCENT and a FIXED adjustment), and each run of the report job for a
// month, which creates a report per workspace from the month's unified costs, its data rows and
// adjustment rows, then expires the DONE reports it supersedes and deletes older drafts.
// Reports are stored, not recomputed: a report once made keeps its figures, as in MongoDB.

import { monthDays } from './calendar.ts';
import { stableId } from './prng.ts';
import type { SimState } from './state.ts';
import { CURRENCIES, monthRates, unifiedCostRecords } from './unified-costs.ts';
import type { ApiRecord } from './world.ts';

export type ReportPhase = 'IN_PROGRESS' | 'ADJUSTING' | 'DONE';

export interface ReportStore {
  readonly configs: ApiRecord[];
  readonly policies: ApiRecord[];
  readonly adjustments: ApiRecord[];
  readonly reports: ApiRecord[];
  readonly data: ApiRecord[];
  /** Ids and created_at made strictly increasing, as Cloudforet's clock would order them. */
  seq: number;
  lastMs: number;
}

type Costs = Record<string, number>;

const seeded = new WeakMap<SimState, ReportStore>();

/** The state's report store, seeded on first use with the config, policies and adjustments. */
export function reportStore(state: SimState): ReportStore {
  let store = seeded.get(state);
  if (!store) {
    store = seedStore(state);
    seeded.set(state, store);
  }
  return store;
}

function seedStore(state: SimState): ReportStore {
  const { seed, domainId, workspaces } = state.world;
  const at = '2025-01-02T03:04:05.000Z';
  const configId = stableId('crc', seed, 'config');
  // model/cost_report_config/database.py; the default config (cost_report_config_manager.py
  // create_default_cost_report_config) is KRW, issue day 10, WORKSPACE; adjustments enabled here.
  const config: ApiRecord = {
    cost_report_config_id: configId,
    state: 'ENABLED',
    scope: 'WORKSPACE',
    issue_day: 10,
    is_last_day: false,
    adjustment_options: { enabled: true, period: 3 },
    currency: 'KRW',
    recipients: {},
    data_source_filter: {},
    language: 'ko',
    domain_id: domainId,
    created_at: at,
  };
  const policy = (order: number, workspaceIds: string[], adjustmentIds: string[]): ApiRecord => ({
    report_adjustment_policy_id: stableId('rap', seed, order),
    adjustments: adjustmentIds,
    scope: 'WORKSPACE',
    order,
    description: `policy ${order}`,
    tags: {},
    policy_filter: { workspace_ids: workspaceIds, project_ids: [] },
    cost_report_config_id: configId,
    domain_id: domainId,
    created_at: at,
    updated_at: at,
  });
  const percentId = stableId('ra', seed, 'percent');
  const fixedId = stableId('ra', seed, 'fixed');
  const first = workspaces[0]?.['workspace_id'] as string;
  const policies = [policy(1, [first], [percentId]), policy(2, [], [fixedId])];
  const adjustment = (id: string, p: ApiRecord, fields: ApiRecord): ApiRecord => ({
    report_adjustment_id: id,
    description: '',
    order: 1,
    adjustment_filter: {},
    cost_report_config_id: configId,
    report_adjustment_policy_id: p['report_adjustment_policy_id'],
    domain_id: domainId,
    created_at: at,
    updated_at: at,
    ...fields,
  });
  const adjustments = [
    // A 5 % discount on AWS for the first workspace only (policy 1 filters it).
    adjustment(percentId, policies[0] as ApiRecord, {
      name: 'AWS discount',
      unit: 'PERCENT',
      value: -5,
      provider: 'aws',
      currency: 'USD',
    }),
    // A flat 100 USD support fee on every workspace (policy 2 has no filter).
    adjustment(fixedId, policies[1] as ApiRecord, {
      name: 'Support fee',
      unit: 'FIXED',
      value: 100,
      provider: 'azure',
      currency: 'USD',
    }),
  ];
  return { configs: [config], policies, adjustments, reports: [], data: [], seq: 0, lastMs: 0 };
}

function sumInto(into: Costs, cost: unknown): void {
  for (const c of CURRENCIES) {
    const v = (cost as Costs | undefined)?.[c];
    into[c] = (into[c] ?? 0) + (typeof v === 'number' ? v : 0);
  }
}

function groupSum(records: readonly ApiRecord[], keys: readonly string[]): ApiRecord[] {
  const groups = new Map<string, ApiRecord>();
  for (const r of records) {
    const key = JSON.stringify(keys.map((k) => r[k] ?? null));
    let g = groups.get(key);
    if (!g) {
      g = { ...Object.fromEntries(keys.map((k) => [k, r[k]])), cost: {} };
      groups.set(key, g);
    }
    sumInto(g['cost'] as Costs, r['cost']);
  }
  return [...groups.values()];
}

function tick(store: ReportStore): string {
  store.lastMs = Math.max(Date.now(), store.lastMs + 1);
  return new Date(store.lastMs).toISOString();
}

/** cost_report_serivce.py get_issue_day and _get_issue_month_from_report_month: the next month's issue day. */
export function issueDate(config: ApiRecord, reportMonth: string): { date: string; day: number } {
  const [y, m] = reportMonth.split('-').map(Number) as [number, number];
  const next = m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, '0')}`;
  const [first, last] = monthDays(next) ?? [0, 0];
  const lastDay = last - first + 1;
  const day = config['is_last_day'] === true ? lastDay : Math.min(Number(config['issue_day']), lastDay);
  return { date: `${next}-${String(day).padStart(2, '0')}`, day };
}

/** cost_report_serivce.py generate_report_number: the report month with the issue day, then an index. */
export function reportNumber(reportMonth: string, issueDay: number, index: number): string {
  const yymmdd = `${reportMonth.slice(2, 4)}${reportMonth.slice(5, 7)}${String(issueDay).padStart(2, '0')}`;
  return `CostReport_${yymmdd}${String(index).padStart(4, '0')}`;
}

/**
 * One run of the report job for a month (cost_report_serivce.py create_cost_report and
 * _persist_cost_reports_by_status). `phase` is what _calculate_report_flags_and_report_month derives
 * from the date (before the issue day: IN_PROGRESS; after it: ADJUSTING, DONE once the adjustment
 * period is over); `regenerate` is cost_report_config generate_report (ADJUSTING then DONE).
 */
export function runReportJob(
  state: SimState,
  month: string,
  phase: ReportPhase,
  regenerate = false,
): ApiRecord[] {
  const store = reportStore(state);
  const config = store.configs[0] as ApiRecord;
  // _calculate_report_flags_and_report_month: a scheduled run past the adjustment period makes
  // nothing once the month has a DONE report (_check_done_cost_report_exist).
  const hasDone = store.reports.some((r) => r['report_month'] === month && r['status'] === 'DONE');
  if (phase === 'DONE' && !regenerate && hasDone) return [];
  const options = config['adjustment_options'] as { enabled?: boolean; period?: number };
  const withinAdjustment = options.enabled === true && (options.period ?? 0) > 0;
  const isDone = regenerate || phase === 'DONE';
  const status = !regenerate && phase === 'IN_PROGRESS' ? 'IN_PROGRESS' : 'ADJUSTING';
  const { date: issue, day: issueDay } = issueDate(config, month);
  const enabled = new Set(state.world.workspaces.map((w) => w['workspace_id'] as string));
  const unified = unifiedCostRecords(state, month).filter((u) => enabled.has(u['workspace_id'] as string));
  // unified_cost_manager.py analyze_unified_cost_for_report: grouped by workspace, month, exchange
  // date, usage type and unit, region, and workspace_name for the WORKSPACE scope; then
  // cost_report_format_generator.py _aggregate_result_by_currency keeps each workspace's first group
  // (its usage type and region become the report's) and adds the others' cost to it.
  const groups = groupSum(unified, [
    'workspace_id',
    'billed_year',
    'billed_month',
    'exchange_date',
    'usage_type',
    'usage_unit',
    'region_key',
    'region_code',
    'workspace_name',
    'exchange_source',
  ]);
  const perWorkspace = new Map<string, ApiRecord>();
  for (const g of groups) {
    const ws = g['workspace_id'] as string;
    const found = perWorkspace.get(ws);
    if (found) sumInto(found['cost'] as Costs, g['cost']);
    else perWorkspace.set(ws, { ...g, cost: { ...(g['cost'] as Costs) } });
  }
  // get_start_cost_report_number: the domain's reports of that issue date, plus one.
  let index = store.reports.filter((r) => r['issue_date'] === issue).length + 1;
  const createdAtRun = tick(store);
  const made: ApiRecord[] = [];
  for (const group of perWorkspace.values()) {
    const at = tick(store);
    const report: ApiRecord = {
      cost_report_id: stableId('cost-report', state.world.seed, ++store.seq),
      cost: group['cost'],
      status,
      report_number: reportNumber(month, issueDay, index++),
      currency: config['currency'],
      currency_date: group['exchange_date'],
      issue_date: issue,
      report_year: group['billed_year'],
      report_month: month,
      name: (group['workspace_name'] as string | undefined) ?? 'Unknown',
      bank_name: (group['exchange_source'] as string | undefined) ?? 'Yahoo! Finance',
      is_adjusted: false,
      cost_report_config_id: config['cost_report_config_id'],
      workspace_id: group['workspace_id'],
      domain_id: state.world.domainId,
      created_at: at,
      updated_at: at,
    };
    store.reports.push(report);
    const rows = reportDataRows(state, store, report, group, unified);
    store.data.push(...rows);
    if (status === 'ADJUSTING') {
      if (withinAdjustment && store.policies.some((p) => adjustmentsOf(store, p).length > 0)) {
        applyPolicies(state, store, report, group);
        // _get_total_cost_applied_adjustment: the sum of all the report's data rows.
        const total: Costs = {};
        for (const d of store.data)
          if (d['cost_report_id'] === report['cost_report_id']) sumInto(total, d['cost']);
        Object.assign(report, { cost: total, is_adjusted: true, updated_at: tick(store) });
      }
      if (isDone) {
        // _update_cost_report_done_status: DONE, and its data rows confirmed.
        Object.assign(report, { status: 'DONE', updated_at: tick(store) });
        for (const d of store.data)
          if (d['cost_report_id'] === report['cost_report_id']) d['is_confirmed'] = true;
      }
    }
    made.push(report);
  }
  // _change_status_to_expired: DONE reports of the config and month made before this run expire.
  for (const r of store.reports) {
    if (r['report_month'] === month && r['status'] === 'DONE' && (r['created_at'] as string) < createdAtRun)
      Object.assign(r, { status: 'EXPIRED', updated_at: tick(store) });
  }
  // _delete_old_cost_reports: older reports neither DONE nor EXPIRED go, with their data rows.
  const gone = new Set(
    store.reports
      .filter((r) => r['report_month'] === month && (r['created_at'] as string) < createdAtRun)
      .filter((r) => r['status'] !== 'DONE' && r['status'] !== 'EXPIRED')
      .map((r) => r['cost_report_id']),
  );
  remove(store.reports, (r) => gone.has(r['cost_report_id']));
  remove(store.data, (d) => gone.has(d['cost_report_id']));
  return made;
}

function remove(list: ApiRecord[], drop: (r: ApiRecord) => boolean): void {
  const kept = list.filter((r) => !drop(r));
  list.splice(0, list.length, ...kept);
}

/**
 * cost_report_data_service.py _aggregate_unified_cost_report_data: the workspace's unified costs of
 * the month grouped by year, workspace, project, service account, data source, product and provider;
 * names from the workspace's projects and service accounts ('' when unknown); the usage type and
 * region of the report's first group on every row; is_confirmed only when the report is DONE.
 */
function reportDataRows(
  state: SimState,
  store: ReportStore,
  report: ApiRecord,
  group: ApiRecord,
  unified: readonly ApiRecord[],
): ApiRecord[] {
  const mine = unified.filter((u) => u['workspace_id'] === report['workspace_id']);
  const projects = new Map(state.identity.projects.map((p) => [p['project_id'], p['name']]));
  const accounts = new Map(state.identity.serviceAccounts.map((a) => [a['service_account_id'], a['name']]));
  const keys = [
    'billed_year',
    'workspace_id',
    'project_id',
    'service_account_id',
    'data_source_id',
    'product',
    'provider',
  ];
  return groupSum(mine, keys).map((g) => ({
    cost_report_data_id: stableId('crd', state.world.seed, ++store.seq),
    cost: g['cost'],
    issue_date: report['issue_date'],
    report_year: g['billed_year'],
    report_month: report['report_month'],
    is_confirmed: report['status'] === 'DONE',
    is_adjusted: false,
    provider: g['provider'],
    product: g['product'],
    region_code: group['region_code'],
    region_key: group['region_key'],
    usage_type: group['usage_type'],
    usage_unit: group['usage_unit'],
    service_account_name: (accounts.get(g['service_account_id']) as string | undefined) ?? '',
    project_name: (projects.get(g['project_id']) as string | undefined) ?? '',
    workspace_name: report['name'],
    service_account_id: g['service_account_id'],
    data_source_id: g['data_source_id'],
    cost_report_id: report['cost_report_id'],
    cost_report_config_id: report['cost_report_config_id'],
    project_id: g['project_id'],
    workspace_id: report['workspace_id'],
    domain_id: report['domain_id'],
    created_at: tick(store),
  }));
}

/** report_adjustment_manager.py list_sorted_adjustments_by_order. */
function adjustmentsOf(store: ReportStore, policy: ApiRecord): ApiRecord[] {
  return store.adjustments
    .filter((a) => a['report_adjustment_policy_id'] === policy['report_adjustment_policy_id'])
    .sort((a, b) => Number(a['order'] ?? 9999) - Number(b['order'] ?? 9999));
}

/**
 * adjustment_policy_applier.py apply_policies: policies by order, each applicable by its scope's
 * filter (_is_policy_applicable); each adjustment adds one data row (_calculate_adjustment_cost):
 * PERCENT, value % of the report's rows of the adjustment's provider not made by this policy (the
 * `not` filter of _make_query_filter_with_adjustment, so earlier policies' rows count); FIXED, the
 * value converted from its currency at the report's rates (unified_cost_manager.py get_exchange_currency).
 */
function applyPolicies(state: SimState, store: ReportStore, report: ApiRecord, group: ApiRecord): void {
  const policies = [...store.policies].sort((a, b) => Number(a['order']) - Number(b['order']));
  const rates = monthRates(state, report['report_month'] as string);
  for (const policy of policies) {
    const filter = policy['policy_filter'] as { workspace_ids?: string[] };
    const ids = filter.workspace_ids ?? [];
    if (ids.length > 0 && !ids.includes(report['workspace_id'] as string)) continue;
    const policyId = policy['report_adjustment_policy_id'];
    for (const adj of adjustmentsOf(store, policy)) {
      const value = Number(adj['value']);
      let cost: Costs | undefined;
      if (adj['unit'] === 'PERCENT') {
        const rows = store.data.filter(
          (d) =>
            d['cost_report_id'] === report['cost_report_id'] &&
            d['report_adjustment_policy_id'] !== policyId &&
            (!adj['provider'] || d['provider'] === adj['provider']),
        );
        if (rows.length > 0) {
          const sum: Costs = {};
          for (const d of rows) sumInto(sum, d['cost']);
          cost = Object.fromEntries(CURRENCIES.map((c) => [c, (sum[c] ?? 0) * (value / 100)]));
        }
      } else {
        const from = adj['currency'] as string;
        cost = Object.fromEntries(CURRENCIES.map((c) => [c, (rates[`${from}/${c}`] ?? 0) * value]));
      }
      if (!cost) continue;
      // _build_cost_report_data_dict: no data source, account or names; the report's project.
      store.data.push({
        cost_report_data_id: stableId('crd', state.world.seed, ++store.seq),
        cost,
        issue_date: report['issue_date'],
        report_year: (report['report_month'] as string).slice(0, 4),
        report_month: report['report_month'],
        is_confirmed: false,
        is_adjusted: true,
        provider: adj['provider'],
        product: adj['name'],
        region_code: group['region_code'],
        region_key: group['region_key'],
        usage_type: group['usage_type'],
        usage_unit: group['usage_unit'],
        cost_report_id: report['cost_report_id'],
        cost_report_config_id: report['cost_report_config_id'],
        report_adjustment_policy_id: policyId,
        workspace_id: report['workspace_id'],
        domain_id: report['domain_id'],
        created_at: tick(store),
      });
    }
  }
}

const addDaysIso = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

const monthBefore = (month: string, n: number): string => {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const d = new Date(Date.UTC(y, m - 1 - n, 1));
  return d.toISOString().slice(0, 7);
};

/**
 * The scheduler's run on `today` (YYYY-MM-DD): which month and phase it reports
 * (cost_report_serivce.py _calculate_report_flags_and_report_month, COST_REPORT_RETRY_DAYS 7):
 * in a month's first days it still works on the month before last; before the issue day the report
 * is IN_PROGRESS, from it ADJUSTING, and DONE once the adjustment period has passed.
 */
export function scheduledPhase(state: SimState, today: string): { month: string; phase: ReportPhase } {
  const config = reportStore(state).configs[0] as ApiRecord;
  const options = config['adjustment_options'] as { enabled?: boolean; period?: number };
  const period = options.enabled === true ? (options.period ?? 0) : 0;
  const thisMonth = today.slice(0, 7);
  const inRetry = addDaysIso(today, -7).slice(0, 7) !== thisMonth;
  const month = monthBefore(thisMonth, inRetry ? 2 : 1);
  const { date: issue } = issueDate(config, month);
  if (today < issue) return { month, phase: 'IN_PROGRESS' };
  return { month, phase: today >= addDaysIso(issue, period) ? 'DONE' : 'ADJUSTING' };
}

/** The scheduled job of `today`: its month and phase, then that run (runReportJob). */
export function runScheduledReportJob(state: SimState, today: string): ApiRecord[] {
  const { month, phase } = scheduledPhase(state, today);
  return runReportJob(state, month, phase);
}
