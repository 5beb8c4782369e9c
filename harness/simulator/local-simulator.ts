// The Simulator behind startSimulator: the HTTP server plus the ground-truth and mutation
// methods tests use. Truth is read from the same generators the routes use, not over HTTP.

import { budgetUsageRecords } from './budgets.ts';
import { dayNumber } from './calendar.ts';
import { reportStore, runReportJob, runScheduledReportJob } from './cost-reports.ts';
import type { CostRecord } from './cost-rows.ts';
import type { CostChange } from './cost-store.ts';
import { runSync, type SyncOptions } from './cost-sync.ts';
import { dataSourceAccountRecords } from './data-source-records.ts';
import { type Fault, FaultQueue, pathMatcher, type TakenFault } from './faults.ts';
import { recordsJson } from './record-json.ts';
import { type Answer, type IncomingCall, routeCall } from './routes.ts';
import type { RequestRecord, RunningServer, ServerHooks } from './server.ts';
import type { CloudServiceSelection, CostTruth, RecordKind, Simulator } from './simulator-api.ts';
import { buildState, type SimState, type SimulatorOptions } from './state.ts';
import { TokenIssuer, type TokenRequest } from './tokens.ts';
import { monthRates, unifiedCostRecords } from './unified-costs.ts';
import type { ApiRecord, DataSource, DataSourceAccount } from './world.ts';

interface AfterHook {
  readonly matches: (path: string) => boolean;
  remaining: number;
  readonly run: () => void;
}

const ALL_ROWS = Number.MAX_SAFE_INTEGER;

export class LocalSimulator implements Simulator {
  readonly requests: RequestRecord[] = [];
  private readonly tokens: TokenIssuer;
  private readonly faults = new FaultQueue();
  private readonly afterHooks: AfterHook[] = [];
  private server?: RunningServer;
  /** The server this domain shares with others; the group closes it, not the domain. */
  private shared?: RunningServer;

  private constructor(
    private readonly state: SimState,
    private latencyMs: number,
  ) {
    this.tokens = new TokenIssuer(state.world.domainId);
  }

  /**
   * What a server asks of this domain: answers, latency, faults, the request log. The server
   * itself starts in index.ts, so a test may route calls here in process, with no socket.
   */
  hooks(): ServerHooks {
    return {
      route: (call) => this.route(call),
      latencyMs: () => this.latencyMs,
      takeFault: (path) => this.takeFault(path),
      answered: (record) => this.answered(record),
    };
  }

  /** The server of its own, which close() stops. */
  serveOn(server: RunningServer): void {
    this.server = server;
  }

  /** A domain without a server of its own: a server of several domains routes its calls here. */
  static create(opts: SimulatorOptions): LocalSimulator {
    return new LocalSimulator(buildState(opts), opts.latencyMs ?? 0);
  }

  /** The shared server's address and closer, for a domain made by `create`. */
  attach(server: RunningServer): void {
    this.shared = server;
  }

  get url(): string {
    return this.server?.url ?? this.shared?.url ?? '';
  }

  route(call: IncomingCall): Answer {
    return routeCall(this.state, this.tokens, call);
  }

  takeFault(path: string): TakenFault | undefined {
    return this.faults.take(path);
  }

  get domainId(): string {
    return this.state.world.domainId;
  }

  close(): Promise<void> {
    return this.server?.close() ?? Promise.resolve();
  }

  issueToken(request: TokenRequest = {}): string {
    const pinned = request.role !== undefined && request.role !== 'DOMAIN_ADMIN';
    const workspaceId = request.workspaceId ?? (pinned ? this.workspaceIds()[0] : undefined);
    return this.tokens.issue({ ...request, workspaceId });
  }

  setLatency(ms: number): void {
    this.latencyMs = ms;
  }

  dataSourceIds(): string[] {
    return this.state.world.dataSources.map((ds) => ds.id).sort();
  }

  workspaceIds(): string[] {
    return this.state.world.workspaces.map((w) => w['workspace_id'] as string);
  }

  costTruth(dataSourceId: string, date: string): CostTruth {
    return this.state.costs.truth(this.dataSource(dataSourceId), dayNumber(date));
  }

  costRows(dataSourceId: string, date: string): CostRecord[] {
    const rows = this.state.costs.json(this.dataSource(dataSourceId), dayNumber(date), 0, ALL_ROWS);
    return JSON.parse(`[${rows.join(',')}]`) as CostRecord[];
  }

  cloudServiceTruth(selection?: CloudServiceSelection): Map<string, number> {
    const counts = new Map<string, number>();
    for (const r of this.services(selection)) {
      const key = `${r['provider']}/${r['cloud_service_group']}/${r['cloud_service_type']}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return counts;
  }

  cloudServiceRecords(selection?: CloudServiceSelection): Record<string, unknown>[] {
    return JSON.parse(recordsJson(this.services(selection))) as Record<string, unknown>[];
  }

  records(kind: RecordKind, workspaceId?: string): Record<string, unknown>[] {
    const { world, identity } = this.state;
    const all: Record<RecordKind, readonly ApiRecord[]> = {
      workspaces: world.workspaces,
      project_groups: identity.projectGroups,
      projects: identity.projects,
      service_accounts: identity.serviceAccounts,
      trusted_accounts: identity.trustedAccounts,
      providers: identity.providers,
      data_source_accounts: dataSourceAccountRecords(this.state),
    };
    const visible = all[kind].filter(
      (r) =>
        workspaceId === undefined ||
        kind === 'providers' ||
        r['workspace_id'] === workspaceId ||
        r['resource_group'] === 'DOMAIN',
    );
    return JSON.parse(recordsJson(visible)) as Record<string, unknown>[];
  }

  /** One day re-synced by a successful job (a real one would replace whole months). */
  resync(dataSourceId: string, date: string, change?: CostChange): void {
    const ds = this.dataSource(dataSourceId);
    const job = this.state.costs.jobs.start(ds, date.slice(0, 7), Date.now() - 60_000);
    this.state.costs.resync(ds, dayNumber(date), change ?? {}, String(job['job_id']));
    this.state.costs.jobs.finish(job, 'SUCCESS');
  }

  sync(dataSourceId: string, opts: SyncOptions): string {
    return runSync(this.state.costs, this.dataSource(dataSourceId), opts);
  }

  resyncDuringPaging(opts: Parameters<Simulator['resyncDuringPaging']>[0]): void {
    const { path, afterRequests, dataSourceId, date, change } = opts;
    this.dataSource(dataSourceId);
    this.afterHooks.push({
      matches: pathMatcher(path ?? '/cost-analysis/cost/list'),
      remaining: afterRequests,
      run: () => this.resync(dataSourceId, date, change),
    });
  }

  setJobInProgress(dataSourceId: string, inProgress: boolean, opts: { startedAgoMs?: number } = {}): string {
    const ds = this.dataSource(dataSourceId);
    const { jobs } = this.state.costs;
    jobs.dropRunning(ds);
    if (!inProgress) return '';
    const month = new Date().toISOString().slice(0, 7);
    return String(jobs.start(ds, month, Date.now() - (opts.startedAgoMs ?? 5 * 60_000))['job_id']);
  }

  /**
   * Links a routed account to another workspace (undefined: unlinks it), as a data-source-account
   * update does: no stored cost row changes (they keep the account's virtual workspace id); what
   * data-source-account/list and cost/analyze answer does.
   */
  relinkAccount(dataSourceId: string, accountId: string, workspaceId: string | undefined): void {
    const accounts = this.dataSource(dataSourceId).accounts as DataSourceAccount[];
    const i = accounts.findIndex((a) => a.accountId === accountId);
    if (i < 0) throw new Error(`simulator: data source ${dataSourceId} has no account ${accountId}`);
    const account = accounts[i]!;
    accounts[i] = {
      ...account,
      workspaceId: workspaceId ?? account.workspaceId,
      linked: workspaceId !== undefined,
    };
  }

  setWarehouse(dataSourceId: string): void {
    this.state.warehouses.add(this.dataSource(dataSourceId).id);
  }

  setSortLimit(rows: number | undefined): void {
    this.state.costs.sortLimitRows = rows;
  }

  unifiedCostRecords(): ApiRecord[] {
    return JSON.parse(JSON.stringify(unifiedCostRecords(this.state))) as ApiRecord[];
  }

  budgetUsageRecords(): ApiRecord[] {
    return budgetUsageRecords(this.state);
  }

  exchangeRates(month: string): Record<string, number> {
    return monthRates(this.state, month);
  }

  setFallbackRates(month: string, on: boolean): void {
    if (on) this.state.fallbackRateMonths.add(month);
    else this.state.fallbackRateMonths.delete(month);
  }

  runCostReportJob(month: string, phase: 'IN_PROGRESS' | 'ADJUSTING' | 'DONE'): ApiRecord[] {
    return copy(runReportJob(this.state, month, phase));
  }

  regenerateCostReport(month: string): ApiRecord[] {
    return copy(runReportJob(this.state, month, 'DONE', true));
  }

  runScheduledCostReportJob(today: string): ApiRecord[] {
    return copy(runScheduledReportJob(this.state, today));
  }

  costReportTruth() {
    const store = reportStore(this.state);
    return {
      reports: copy(store.reports),
      data: copy(store.data),
      adjustments: copy(store.adjustments),
      policies: copy(store.policies),
    };
  }

  setUnifiedCostsMissing(month: string, missing: boolean): void {
    if (missing) this.state.missingUnifiedMonths.add(month);
    else this.state.missingUnifiedMonths.delete(month);
  }

  injectFault(fault: Fault): void {
    this.faults.add(fault);
  }

  clearFaults(): void {
    this.faults.clear();
  }

  faultsPending(): number {
    return this.faults.size;
  }

  resetRequestLog(): void {
    this.requests.length = 0;
  }

  /** Logs a request, then runs any re-sync waiting for it (a reset one was never answered). */
  answered(record: RequestRecord): void {
    this.requests.push(record);
    if (record.status === 0) return;
    for (const hook of [...this.afterHooks]) {
      if (!hook.matches(record.path) || --hook.remaining > 0) continue;
      this.afterHooks.splice(this.afterHooks.indexOf(hook), 1);
      hook.run();
    }
  }

  private dataSource(id: string): DataSource {
    const ds = this.state.costs.dataSource(id);
    if (!ds) throw new Error(`simulator: unknown data source ${id}`);
    return ds;
  }

  private services(selection: CloudServiceSelection = {}): ApiRecord[] {
    return this.state.inventory.services
      .map((s) => s.record)
      .filter((r) => selection.includeInactive || r['state'] === 'ACTIVE')
      .filter((r) => selection.workspaceId === undefined || r['workspace_id'] === selection.workspaceId);
  }
}

const copy = (records: readonly ApiRecord[]): ApiRecord[] =>
  JSON.parse(JSON.stringify(records)) as ApiRecord[];
