// The destination's layout: every key and prefix the export writes, built here and nowhere else.
//   <table>/<partition key>=<value>/<name>.parquet        the tables Athena reads
//   focus/x_billing_period=YYYY-MM/x_charge_day=DD/<data source>.parquet   (month, then day)
//   _manifests/<table>/<partition key>=<value>/<name>.json what each unit published
//   costs_monthly/billed_month=M/<data source>.parquet      a confirmed month compacted (and
//   focus_monthly/x_billing_period=M/<data source>.parquet  its focus rows), manifests as above
//   compaction_state/<daily table>.json                     through which month views read them
//   <table>_revisions/<partition key>=<value>/<name>~<sha256 16>.parquet  a superseded object,
//                                                           kept for good (costs, focus, unified
//                                                           costs, the monthly objects)
//   ledger/revisions/superseded_date=YYYY-MM-DD/<unit>~<ms>-<tag>.json  one line per revision kept
//   _compaction_dirty/<daily table>/<month>/<data source>~<ms>-<tag>.json  a day of a compacted
//                                                           month changed: compact it again
//   _manifests/cost-jobs/<data source>.json                 the job history a run saw
//   _runs/costs/<run id>/units.json                         a scheduled cost job's units (Step Functions)
//   _runs/costs/<run id>/job.json                           its state between the states
//   _runs/costs/<run id>/reports/<data source>/<day>.json   what each of its units did
//   ledger/<table>/<day key>=YYYY-MM-DD/<unit>~<ms>-<tag>.json  append-only ledgers
//   ledger/export_units_latest/table_name=<t>/<source>.json      the ledger's rollup (latest per unit)
//   _ledger-rollup/export_units_latest.json                        how far the rollup has read the lines
//   statements/billed_month=M/<workspace>[.r<N>].csv|.html|.txt monthly statements and revisions
//   _manifests/statements/billed_month=M/<workspace>.r<N>.json   what each archived version holds
//   _alerts/sent/<kind>/<…>/v<NNNN>.json, v<NNNN>.sent.json     the sent-alerts ledger
//   _destination.json, _destination-costs.json              which domain and cost scope own it
//   _claim-takeovers/<claim>-<time>.json                    one per expired claim taken over
//   _tmp/.<name>.<pid>-<hex>.tmp                            the directory sink's temporaries
//   _damaged/<key>                                          a ledger file that did not parse, set aside whole
//   _moved-in.json                                          a tenant's folder: the single-domain move into it
// A leading `_` keeps Athena, Spark and Hive from reading bookkeeping as data.
import { randomBytes } from 'node:crypto';
import { isIsoDate, utcDay } from '../dates.ts';

/** A table as far as its keys go: its folder and its partition column(s). */
export interface TableLocation {
  readonly name: string;
  readonly partitionKey: string;
  /** Under a monthly key, the day of the month: the partition value is then a day (YYYY-MM-DD). */
  readonly dayKey?: string;
}

/** `key=value`, or for a table with a day key `key=YYYY-MM/dayKey=DD` from a YYYY-MM-DD day. */
function partitionPath(table: TableLocation, partition: string): string {
  if (!table.dayKey) return `${table.partitionKey}=${partition}`;
  return `${table.partitionKey}=${partition.slice(0, 7)}/${table.dayKey}=${partition.slice(8, 10)}`;
}

export const MANIFESTS_DIR = '_manifests';
export const RUNS_DIR = '_runs';
export const LEDGER_DIR = 'ledger';
export const CLAIM_KEY = '_destination.json';
/** The cost scope's claim, when the destination's first run exported no costs. */
export const COST_CLAIM_KEY = '_destination-costs.json';
/** Markers of claims taken over, one per expired claim (destination-claim.ts). */
export const CLAIM_TAKEOVERS_DIR = '_claim-takeovers';
/** The marker one run creates to take over an expired claim made or renewed at `at`. */
export function claimTakeoverKey(claimKey: string, at: string): string {
  const stamp = at.replace(/[^0-9TZ]/g, '') || 'undated';
  return `${CLAIM_TAKEOVERS_DIR}/${claimKey.replace(/^_|\.json$/g, '')}-${stamp}.json`;
}
/** The directory sink's temporaries (storage/temp-files.ts names them): never an object of the export. */
export { TEMP_DIR } from '../storage/temp-files.ts';
/** Bookkeeping files that did not parse, set aside whole (destination/gate.ts setAsideUnreadable). */
export const DAMAGED_DIR = '_damaged';
export function setAsideKey(key: string): string {
  return `${DAMAGED_DIR}/${key}`;
}
/** In a tenant's folder: the move of a single-domain destination into it (destination/tenant-move.ts). */
export const MOVE_RECORD_KEY = '_moved-in.json';
/** Step Functions' own Map results: at the destination's root with tenants or without, so never moved. */
export const MAP_RESULTS_PREFIX = `${RUNS_DIR}/costs/map-results/`;
/** The daily run across tenants keeps its lanes here, beside every tenant's folder (tenantsRunPrefix). */
export const TENANTS_RUNS_PREFIX = `${RUNS_DIR}/costs/lanes/`;
/** What a stack's runs keep at the shared destination's root, of no tenant: a move leaves it there. */
export const SHARED_RUN_PREFIXES: readonly string[] = [MAP_RESULTS_PREFIX, TENANTS_RUNS_PREFIX];
export const JOB_MARKS_PREFIX = `${MANIFESTS_DIR}/cost-jobs/`;

/** The folder of one partition of a table: `<table>/<partition key>=<value>/` (see partitionPath). */
export function partitionPrefix(table: TableLocation, partition: string): string {
  return `${table.name}/${partitionPath(table, partition)}/`;
}

/** The Parquet object of one unit: `<name>` is a data source id or a scope ('domain', a workspace). */
export function objectKey(table: TableLocation, partition: string, name: string): string {
  return `${partitionPrefix(table, partition)}${name}.parquet`;
}

export function manifestPrefix(table: TableLocation): string {
  return `${MANIFESTS_DIR}/${table.name}/`;
}

export function manifestKey(table: TableLocation, partition: string, name: string): string {
  return `${manifestPrefix(table)}${partitionPath(table, partition)}/${name}.json`;
}

/** The manifests of one partition of a table. */
export function partitionManifestPrefix(table: TableLocation, partition: string): string {
  return `${manifestPrefix(table)}${table.partitionKey}=${partition}/`;
}

/** Monthly statements per workspace: `statements/billed_month=M/<file>` (csv, html, a revision's note). */
export const STATEMENTS: TableLocation = { name: 'statements', partitionKey: 'billed_month' };

export function statementKey(month: string, file: string): string {
  return `${partitionPrefix(STATEMENTS, month)}${file}`;
}

/** The record of one archived statement version: `_manifests/statements/billed_month=M/<name>.r<N>.json`. */
export function statementManifestKey(month: string, name: string, revision: number): string {
  return manifestKey(STATEMENTS, month, `${name}.r${revision}`);
}

export const ALERTS_DIR = '_alerts';

/**
 * The sent-alerts ledger: one folder per alert (`id`: slash-separated parts, each made key-safe),
 * one claim per version sent (`v0001.json`, created only if absent: one run wins it) and its
 * confirmation once SNS took the message (`v0001.sent.json`).
 */
export function alertPrefix(id: readonly string[]): string {
  const safe = id.map((part) => part.replace(/[^A-Za-z0-9._-]/g, (c) => `~${c.charCodeAt(0).toString(16)}`));
  return `${ALERTS_DIR}/sent/${safe.join('/')}/`;
}

export function alertClaimKey(id: readonly string[], version: number): string {
  return `${alertPrefix(id)}v${String(version).padStart(4, '0')}.json`;
}

export function alertSentKey(id: readonly string[], version: number): string {
  return `${alertPrefix(id)}v${String(version).padStart(4, '0')}.sent.json`;
}

export function jobMarkKey(dataSourceId: string): string {
  return `${JOB_MARKS_PREFIX}${dataSourceId}.json`;
}

/** A backfill's units, relative to the destination: the plan step writes, the Distributed Map reads. */
export function backfillUnitsKey(runId: string): string {
  return `${costJobPrefix(runId)}units.json`;
}

/**
 * One daily run across tenants (costs/job/lanes.ts): its lanes and their list, relative to the
 * shared destination (beside every tenant's folder, in none); removed at the run's end.
 */
export function tenantsRunPrefix(runId: string): string {
  return `${TENANTS_RUNS_PREFIX}${runId}/`;
}

/** Everything one scheduled cost job keeps between its states (costs/job/): removed at its end. */
export function costJobPrefix(runId: string): string {
  return `${RUNS_DIR}/costs/${runId}/`;
}

/** The scheduled cost job's state between its states. */
export function costJobStateKey(runId: string): string {
  return `${costJobPrefix(runId)}job.json`;
}

/** What one unit of a scheduled cost job did (its result or its failure), for the states after the Map. */
export function costJobReportKey(runId: string, dataSourceId: string, date: string): string {
  return `${costJobReportsPrefix(runId)}${dataSourceId}/${date}.json`;
}

export function costJobReportsPrefix(runId: string): string {
  return `${costJobPrefix(runId)}reports/`;
}

/** Where a ledger table's lines live, relative to the destination. */
export function ledgerPrefix(table: string): string {
  return `${LEDGER_DIR}/${table}/`;
}

/**
 * A key no other version takes: the unit's manifest path flattened, the instant, and a random tag
 * (two runs may record the same unit in the same millisecond). The folder is the UTC day of `at`,
 * the table's projected partition.
 */
export function ledgerKey(table: TableLocation, at: string, unitPath: string): string {
  const day = isIsoDate(at.slice(0, 10)) ? at.slice(0, 10) : utcDay(new Date());
  const flat = unitPath
    .replace(new RegExp(`^${MANIFESTS_DIR}/`), '')
    .replace(/\.json$/, '')
    .replaceAll('/', '~');
  const tag = randomBytes(4).toString('hex');
  return `${ledgerPrefix(table.name)}${table.partitionKey}=${day}/${flat}~${Date.parse(at) || Date.now()}-${tag}.json`;
}

/** The rollup of one exported table's units of one source (a data source id or a scope's name). */
export function ledgerRollupKey(rollup: TableLocation, table: string, source: string): string {
  const safe = source.replace(/[^A-Za-z0-9._-]/g, (c) => `~${c.charCodeAt(0).toString(16)}`);
  return `${ledgerPrefix(rollup.name)}${rollup.partitionKey}=${table}/${safe}.json`;
}

/** The rollup's watermark: the export day from which the next rollup reads the ledger's lines. */
export function ledgerRollupStateKey(rollup: TableLocation): string {
  return `_ledger-rollup/${rollup.name}.json`;
}

/** The compaction state of a daily table (one JSON line, a Glue table): which months views read compacted. */
export const COMPACTION_STATE_DIR = 'compaction_state';

export function compactionStateKey(dailyTable: string): string {
  return `${COMPACTION_STATE_DIR}/${dailyTable}.json`;
}

export const COMPACTION_DIRTY_DIR = '_compaction_dirty';

/** The marks of a daily table's months changed since compacted (compaction-state.ts). */
export function compactionDirtyPrefix(dailyTable: string): string {
  return `${COMPACTION_DIRTY_DIR}/${dailyTable}/`;
}

/** One mark, under a key no other write takes (the instant and a random tag): no mark overwrites another. */
export function compactionDirtyKey(dailyTable: string, month: string, name: string, at: Date): string {
  return `${compactionDirtyPrefix(dailyTable)}${month}/${name}~${at.getTime()}-${randomBytes(4).toString('hex')}.json`;
}

/** The folder a table's superseded objects are kept in, for good: `<table>_revisions`. */
export function revisionsTableName(table: string): string {
  return `${table}_revisions`;
}

/**
 * Where a superseded object is kept: its own key under the table's revisions folder, its name
 * followed by the first 16 hex digits of its bytes' SHA-256. The name depends on the bytes only, so
 * keeping the same object twice (a rerun after a crash) writes one revision.
 */
export function revisionKey(objectKey: string, sha256: string): string {
  const slash = objectKey.indexOf('/');
  if (slash <= 0 || !objectKey.endsWith('.parquet')) throw new Error(`${objectKey} is no table object`);
  const table = objectKey.slice(0, slash);
  const rest = objectKey.slice(slash, -'.parquet'.length);
  return `${revisionsTableName(table)}${rest}~${sha256.slice(0, 16)}.parquet`;
}
