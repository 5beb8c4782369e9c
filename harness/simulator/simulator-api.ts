// What a simulator offers its users: the HTTP API plus ground truth computed without HTTP.
import type { CostRecord } from './cost-rows.ts';
import type { CostChange } from './cost-store.ts';
import type { SyncOptions } from './cost-sync.ts';
import type { Fault } from './faults.ts';
import type { RequestRecord } from './server.ts';
import type { Role } from './tokens.ts';

export interface CostTruth {
  rows: number;
  costSum: number;
  usageQuantitySum: number;
}

export interface CloudServiceSelection {
  workspaceId?: string;
  includeInactive?: boolean;
}

/** Identity and routing records, by the table names the exporter gives them. */
export type RecordKind =
  | 'workspaces'
  | 'project_groups'
  | 'projects'
  | 'service_accounts'
  | 'trusted_accounts'
  | 'providers'
  | 'data_source_accounts';

export interface Simulator {
  readonly url: string;
  readonly domainId: string;
  close(): Promise<void>;
  issueToken(opts?: {
    role?: Role;
    workspaceId?: string;
    expiresInSeconds?: number;
    badSignature?: boolean;
  }): string;
  setLatency(ms: number): void;
  dataSourceIds(): string[];
  workspaceIds(): string[];
  costTruth(dataSourceId: string, date: string): CostTruth;
  costRows(dataSourceId: string, date: string): CostRecord[];
  cloudServiceTruth(opts?: CloudServiceSelection): Map<string, number>;
  cloudServiceRecords(opts?: CloudServiceSelection): Record<string, unknown>[];
  /** The records of a kind as the API shows them, the whole domain or what one workspace sees. */
  records(kind: RecordKind, workspaceId?: string): Record<string, unknown>[];
  resync(dataSourceId: string, date: string, change?: CostChange): void;
  resyncDuringPaging(opts: {
    path?: string;
    afterRequests: number;
    dataSourceId: string;
    date: string;
    change?: CostChange;
  }): void;
  /** Unified costs (every month) and budget usage (exact doubles), as the API would list them. */
  unifiedCostRecords(): Record<string, unknown>[];
  budgetUsageRecords(): Record<string, unknown>[];
  /** The month's `FROM/TO` exchange rates. */
  exchangeRates(month: string): Record<string, number>;
  /** Switch a month (YYYY-MM) to Cloudforet's hard-coded fallback rates, or back. */
  setFallbackRates(month: string, on: boolean): void;
  /** Make a month's unified costs absent (not aggregated yet), or present again. */
  setUnifiedCostsMissing(month: string, missing: boolean): void;
  /**
   * One run of Cloudforet's cost-report job for a month (YYYY-MM) at the phase the scheduler derives
   * from the date, or a regeneration (cost-report-config generate_report): returns the reports it made.
   */
  runCostReportJob(month: string, phase: 'IN_PROGRESS' | 'ADJUSTING' | 'DONE'): Record<string, unknown>[];
  regenerateCostReport(month: string): Record<string, unknown>[];
  /** The scheduler's run on a day (YYYY-MM-DD): the month and phase Cloudforet derives from it. */
  runScheduledCostReportJob(today: string): Record<string, unknown>[];
  /** Every stored report, data row and adjustment, as the simulator holds them (deep copies). */
  costReportTruth(): {
    reports: Record<string, unknown>[];
    data: Record<string, unknown>[];
    adjustments: Record<string, unknown>[];
    policies: Record<string, unknown>[];
  };
  /** A sync job from a month to today: SUCCESS re-inserts every day, FAILURE leaves leftovers. */
  sync(dataSourceId: string, opts: SyncOptions): string;
  /** Returns the running job's id ('' when none); `startedAgoMs` makes it old (stale). */
  setJobInProgress(dataSourceId: string, inProgress: boolean, opts?: { startedAgoMs?: number }): string;
  /** The data source becomes a WAREHOUSE one: its cost/list answers 500. */
  /** Links a routed account to another workspace (undefined: unlinks it); no cost row changes. */
  relinkAccount(dataSourceId: string, accountId: string, workspaceId: string | undefined): void;
  setWarehouse(dataSourceId: string): void;
  /** Rows a sorted cost/list or cloud-service/list may hold before it fails with ERROR_DB_QUERY; undefined: no limit. */
  setSortLimit(rows: number | undefined): void;
  injectFault(fault: Fault): void;
  /** Drops every injected fault not yet consumed. */
  clearFaults(): void;
  /** Injected faults not yet wholly consumed: 0 once a held request (kind 'slow') has arrived. */
  faultsPending(): number;
  readonly requests: Array<RequestRecord>;
  resetRequestLog(): void;
}
