// The CloudWatch names the functions publish under and the stack's alarms and dashboard read:
// one list, so the two cannot drift apart.

export const METRICS_NAMESPACE = 'CloudforetExport';
/** Powertools' `service` dimension, the same for every function. */
export const METRICS_SERVICE = 'cloudforet-export';

/** Per invocation, with the dimensions service and function. */
export const RUN_METRICS = {
  rows: 'RowsExported',
  bytes: 'BytesExported',
  exported: 'UnitsExported',
  unchanged: 'UnitsUnchanged',
  failed: 'UnitsFailed',
  apiRetries: 'ApiRetries',
} as const;

/** Per data source, with the dimensions service and data_source_id. */
export const SOURCE_METRICS = {
  billedDayAge: 'NewestBilledDayAgeHours',
  syncAge: 'LastSyncAgeHours',
} as const;

/** The worst data source, with the dimension service alone: what the freshness alarms watch. */
export const FRESHNESS_METRICS = {
  billedDayAge: 'StalestBilledDayAgeHours',
  syncAge: 'StalestSyncAgeHours',
} as const;

export const FUNCTION_DIMENSION = 'function';
export const DATA_SOURCE_DIMENSION = 'data_source_id';
/** In a stack of tenants, a second copy of each metric carries the tenant (run-metrics.ts). */
export const TENANT_DIMENSION = 'tenant';
