// Inventory snapshots: each table is one unit, paged from Cloudforet into one Parquet object
// <table>/snapshot_date=D/<scope>.parquet that a re-run replaces whole. The scope part ('domain'
// for a domain app, the workspace id for a workspace app) keeps scopes from overwriting each other.

import { randomUUID } from 'node:crypto';
import { type AnalyzeRequest, analyzePages } from '../cloudforet/analyze-pages.ts';
import { DEADLINE, DOMAIN_UNKNOWN } from '../cloudforet/explain.ts';
import { SILENCE } from '../cloudforet/silence.ts';
import { manifestKey, objectKey } from '../destination/layout.ts';
import type { UnitManifest } from '../destination/manifest.ts';
import { CloudforetApiError } from '../errors.ts';
import { rollUp } from '../export/ledger-rollup.ts';
import { exportListing } from '../export/listing-export.ts';
import { prepareDestination } from '../export/prepare-destination.ts';
import type { ExportRunDeps } from '../export/run-deps.ts';
import { attemptUnit, UNIT_INTERRUPTED } from '../export/unit-attempts.ts';
import { type Logger, silentLogger } from '../log.ts';
import { forEachLimit } from '../pool.ts';
import { scopeLabel, scopeName } from '../scope.ts';
import {
  INACTIVE_STATES,
  type InventoryContext,
  type InventorySource,
  type InventoryTableDef,
  inventorySources,
} from '../tables/inventory.ts';
import { foldSnapshotDay } from './name-ranges.ts';

export interface InventoryScope {
  /** 'domain domain-…' or 'workspace workspace-…', as sessions name it. */
  readonly label: string;
  /** The object name within a partition: 'domain', or the workspace id. */
  readonly objectName: string;
}

export function inventoryScope(credential: { domainId: string; workspaceId: string }): InventoryScope {
  return { label: scopeLabel(credential), objectName: scopeName(credential) };
}

export function inventoryObjectKey(table: InventoryTableDef, date: string, scope: InventoryScope): string {
  return objectKey(table, date, scope.objectName);
}

export function inventoryManifestKey(table: InventoryTableDef, date: string, scope: InventoryScope): string {
  return manifestKey(table, date, scope.objectName);
}

export interface InventoryRunRequest {
  readonly snapshotDate: string;
  /** Add DISCONNECTED and DELETED cloud services to the ACTIVE ones Cloudforet lists by default. */
  readonly includeInactive?: boolean;
}

/** A unit is a table; `rowGroupRows` overrides every table's own size. */
export interface InventoryRunDeps extends ExportRunDeps {
  readonly credential: { readonly domainId: string; readonly workspaceId: string };
  readonly sources?: readonly InventorySource[];
}

export interface InventoryTableResult {
  /**
   * written: a new object; removed: nothing listed and nothing published, so no object; kept:
   * nothing listed where a snapshot is published, which is kept (an empty answer proves nothing); failed: left as it was;
   * skipped: this app's role may not read it (a workspace member and workspace/analyze), nothing touched.
   */
  readonly outcome: 'written' | 'removed' | 'empty' | 'kept' | 'failed' | 'skipped';
  readonly rows: number;
  readonly bytes: number;
  readonly key: string | null;
  /** Why a table was skipped. */
  readonly reason?: string;
}

export interface InventoryFailure {
  readonly table: string;
  readonly code: string;
  readonly message: string;
  readonly attempts: number;
}

export interface InventoryRunSummary {
  readonly runId: string;
  readonly destination: string;
  readonly snapshotDate: string;
  readonly scope: string;
  readonly includeInactive: boolean;
  readonly tables: Readonly<Record<string, InventoryTableResult>>;
  readonly rows: number;
  readonly bytes: number;
  readonly failed: number;
  /** Tables this app may not list, each with the reason; the run still succeeds. */
  readonly skipped: readonly { readonly table: string; readonly reason: string }[];
  readonly unitRetries: number;
  readonly requestRetries: number;
  readonly durationMs: number;
  readonly failures: readonly InventoryFailure[];
}

interface UnitDeps extends InventoryRunDeps {
  readonly runId: string;
  readonly log: Logger;
  readonly scope: InventoryScope;
  readonly onRows: (rows: number) => void;
  readonly watch: EndpointWatch;
  /** The destination's claim, taken once before anything is published. */
  readonly claim: () => Promise<void>;
}

interface TableOutcome {
  readonly result: InventoryTableResult;
  readonly failure?: InventoryFailure;
  readonly retries: number;
}

export async function runInventoryExport(
  deps: InventoryRunDeps,
  req: InventoryRunRequest,
): Promise<InventoryRunSummary> {
  const started = Date.now();
  const runId = deps.runId ?? randomUUID();
  const scope = inventoryScope(deps.credential);
  const log = (deps.log ?? silentLogger).child({ runId, snapshotDate: req.snapshotDate, scope: scope.label });
  const sources = deps.sources ?? inventorySources;
  const destination = await prepareDestination(deps.sink, {
    startedAt: new Date(started),
    owner: deps.credential,
    costs: false,
  });
  // Claimed once Cloudforet has answered, before the first table publishes (as costs claims after
  // its first answer): a wrong secret or endpoint leaves no claim naming a scope it never proved.
  const claim = () => destination.claim();
  const outcomes = new Map<string, TableOutcome>();
  let rowsRead = 0;
  const progress = () =>
    deps.onProgress?.({
      unitsDone: outcomes.size,
      unitsTotal: sources.length,
      rows: rowsRead,
      elapsedMs: Date.now() - started,
    });
  // Nothing answered yet, nothing to count: a broken endpoint ends the run with one line.
  const watch = new EndpointWatch(Math.max(1, Math.min(deps.concurrency ?? 4, sources.length)));
  const report = () => {
    if (watch.heard) progress();
  };
  const onRows = (rows: number) => {
    watch.answered();
    rowsRead += rows;
    report();
  };
  const signal = deps.signal ? AbortSignal.any([deps.signal, watch.signal]) : watch.signal;
  const unitDeps: UnitDeps = { ...deps, signal, runId, log, scope, onRows, watch, claim };
  await forEachLimit(sources, deps.concurrency ?? 4, async (source) => {
    const startable = deps.shouldStartUnit?.() !== false && !signal.aborted;
    outcomes.set(
      source.table.name,
      startable ? await exportTableWithRetries(unitDeps, source, req) : notStarted(source.table.name),
    );
    if (!startable) watch.answered(); // no verdict waits on a table that never starts
    report();
  });
  // Every table the run began failed alike before anything answered: the endpoint (or the
  // secret) is wrong, not a table. Said once, as costs and check say it; nothing was written.
  if (watch.broken && !deps.signal?.aborted) throw watch.broken;
  const ordered = sources.map((s) => [s.table.name, outcomes.get(s.table.name)!] as const);
  const results = ordered.map(([, o]) => o.result);
  const failures = ordered.flatMap(([, o]) => (o.failure ? [o.failure] : []));
  // The names first: a few small reads, and a day left out would stay out. Stopped (the deadline,
  // a signal), the ledger's rollup is left to the next run.
  if (watch.heard) await claim();
  await foldSnapshotDay(deps.sink, req.snapshotDate, log);
  if (!deps.signal?.aborted) await rollUp(deps.sink, deps.now?.() ?? new Date(), log);
  const summary: InventoryRunSummary = {
    runId,
    destination: deps.sink.location,
    snapshotDate: req.snapshotDate,
    scope: scope.label,
    includeInactive: req.includeInactive === true,
    tables: Object.fromEntries(ordered.map(([name, o]) => [name, o.result])),
    rows: results.reduce((n, r) => n + r.rows, 0),
    bytes: results.reduce((n, r) => n + r.bytes, 0),
    failed: failures.length,
    skipped: ordered.flatMap(([table, o]) => (o.result.reason ? [{ table, reason: o.result.reason }] : [])),
    unitRetries: ordered.reduce((n, [, o]) => n + o.retries, 0),
    requestRetries: deps.client.retries,
    durationMs: Date.now() - started,
    failures,
  };
  log.info('inventory export finished', { ...summary });
  return summary;
}

/** Redo a table on drift or a transient API error, up to unitAttempts; never throws. */
async function exportTableWithRetries(
  deps: UnitDeps,
  source: InventorySource,
  req: InventoryRunRequest,
): Promise<TableOutcome> {
  const table = source.table.name;
  const outcome = await attemptUnit(
    {
      what: 'inventory table',
      log: deps.log,
      fields: { table },
      attempts: deps.unitAttempts,
      signal: deps.signal,
      quietStop: () => deps.watch.broken !== undefined,
    },
    async () => {
      try {
        const result = await exportInventoryTable(deps, source, req);
        deps.watch.answered();
        return result;
      } catch (error) {
        // Held until the verdict: a broken endpoint then stops every table without a line each.
        if (!deps.signal?.aborted) await deps.watch.failed(table, error, deps.signal);
        throw error;
      }
    },
  );
  if (outcome.ok) return { result: outcome.value, retries: outcome.retries };
  const { code, message, attempts } = outcome.failure;
  const failure = { table, code, message, attempts };
  return { result: { outcome: 'failed', rows: 0, bytes: 0, key: null }, failure, retries: outcome.retries };
}

/** A table the run's time did not reach: failed as interrupted, its previous snapshot untouched. */
function notStarted(table: string): TableOutcome {
  const message =
    "not started: the function's time ran short; what it replaces is untouched: rerun to export it";
  const failure = { table, code: UNIT_INTERRUPTED, message, attempts: 0 };
  return { result: { outcome: 'failed', rows: 0, bytes: 0, key: null }, failure, retries: 0 };
}

const isWorkspaceApp = (credential: InventoryRunDeps['credential']) => credential.workspaceId !== '*';

/** The analyze verb a table is read through, if any: a workspace app's own where the table has one. */
function analyzeFor(deps: UnitDeps, source: InventorySource): AnalyzeRequest | undefined {
  return (isWorkspaceApp(deps.credential) && source.workspaceAppAnalyze) || source.analyze;
}

/** A workspace app is refused what its role may not read: skip it and say why, not fail. */
async function exportInventoryTable(
  deps: UnitDeps,
  source: InventorySource,
  req: InventoryRunRequest,
): Promise<InventoryTableResult> {
  try {
    return await exportSnapshot(deps, source, req);
  } catch (error) {
    const refused = error instanceof CloudforetApiError && error.status === 403;
    if (!(refused && source.workspaceAppMayBeRefused && isWorkspaceApp(deps.credential))) throw error;
    const path = analyzeFor(deps, source)?.path ?? source.list.path;
    const reason = `${path} answered 403 to ${deps.scope.label}: this app's role may not read it; nothing written`;
    deps.log.info('inventory table skipped', { table: source.table.name, reason });
    return { outcome: 'skipped', rows: 0, bytes: 0, key: null, reason };
  }
}

/** One table's snapshot: stream every listed record into one object, then its manifest. */
async function exportSnapshot(
  deps: UnitDeps,
  source: InventorySource,
  req: InventoryRunRequest,
): Promise<InventoryTableResult> {
  const { table } = source;
  const now = deps.now?.() ?? new Date();
  const filter =
    source.hidesInactive && req.includeInactive ? [{ k: 'state', v: INACTIVE_STATES, o: 'in' }] : [];
  const context: InventoryContext = { exportedAtMs: now.getTime() };
  const analyze = analyzeFor(deps, source);
  const result = await exportListing(deps, {
    list: { ...source.list, ...(analyze && { path: analyze.path }), filter },
    pages: analyze && ((signal) => analyzePages(deps.client, analyze, signal)),
    table,
    context,
    key: inventoryObjectKey(table, req.snapshotDate, deps.scope),
    manifestKey: inventoryManifestKey(table, req.snapshotDate, deps.scope),
    kvMetadata: { snapshot_date: req.snapshotDate, scope: deps.scope.label, run_id: deps.runId },
    rowGroupRows: deps.rowGroupRows ?? source.rowGroupRows,
    onPage: (page) => deps.onRows(page.length),
    beforePublish: () => deps.claim(),
    manifest: (published): UnitManifest & { scope: string; includeInactive: boolean } => ({
      table: table.name,
      partition: req.snapshotDate,
      scope: deps.scope.label,
      includeInactive: req.includeInactive === true,
      ...published,
      totalCount: published.rows,
      schemaVersion: table.schemaVersion,
      runId: deps.runId,
      exportedAt: now.toISOString(),
    }),
  });
  const { outcome, rows, bytes, key } = result;
  if (outcome === 'kept') {
    deps.log.warn('inventory listing answered empty where a snapshot is published; it is kept', {
      table: table.name,
      snapshotDate: req.snapshotDate,
    });
    return { outcome, rows, bytes, key };
  }
  deps.log.info('inventory table exported', { table: table.name, rows, bytes });
  return { outcome, rows, bytes, key };
}

/**
 * Tells a broken endpoint from a broken table. The first attempt of each table the run began at
 * once (as many as its concurrency) failing with one endpoint-wide cause (the secret refused,
 * the role refused, a redirect, no such route, the API or its proxy failing, nothing listening,
 * silence) before any request was answered: the endpoint is broken, and the run stops. Any answer
 * first, or another cause, and each table fails alone as before.
 */
class EndpointWatch {
  heard = false;
  broken: CloudforetApiError | undefined;
  private readonly controller = new AbortController();
  private readonly first = new Map<string, string>();
  private example: CloudforetApiError | undefined;
  private decide!: () => void;
  private readonly decided = new Promise<void>((resolve) => {
    this.decide = resolve;
  });

  constructor(private readonly needed: number) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Something answered (or a table will not start): every table now fails alone. */
  answered(): void {
    if (this.broken) return;
    this.heard = true;
    this.decide();
  }

  /** Resolves once the verdict is in (or the run is stopped); the caller then rethrows. */
  failed(table: string, error: unknown, signal: AbortSignal | undefined): Promise<void> {
    if (this.heard || this.broken || this.first.has(table)) return Promise.resolve();
    const cause = endpointCause(error);
    if (cause === undefined) {
      this.answered(); // the API answered: this is the table's own failure
      return Promise.resolve();
    }
    this.first.set(table, cause);
    this.example ??= error as CloudforetApiError;
    if (new Set(this.first.values()).size > 1) {
      this.answered(); // the failures differ: each table fails alone
    } else if (this.first.size >= this.needed) {
      this.broken = this.example;
      this.controller.abort(this.broken);
      this.decide();
    }
    return signal ? Promise.race([this.decided, abortOf(signal)]) : this.decided;
  }
}

function abortOf(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** The cause, when the failure is the endpoint's or the credential's rather than one table's. */
export function endpointCause(error: unknown): string | undefined {
  if (!(error instanceof CloudforetApiError)) return undefined;
  const status = error.status;
  if (status === undefined) {
    return error.code === 'CLOUDFORET_NETWORK' || error.code === SILENCE || error.code === DEADLINE
      ? error.code
      : undefined;
  }
  const endpointWide =
    error.code === DOMAIN_UNKNOWN ||
    status === 401 ||
    status === 403 ||
    (status >= 300 && status < 400) ||
    status >= 500 ||
    (status === 404 && error.apiCode === undefined);
  return endpointWide ? `${status} ${error.code}` : undefined;
}
