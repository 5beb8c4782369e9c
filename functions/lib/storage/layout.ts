// The destination's layout: every key and prefix the export writes, built here and nowhere else.
//   <table>/<partition key>=<value>/<name>.parquet        the tables Athena reads
//   focus/x_billing_period=YYYY-MM/x_charge_day=DD/<data source>.parquet   (month, then day)
//   _manifests/<table>/<partition key>=<value>/<name>.json what each unit published
//   _manifests/cost-jobs/<data source>.json                 the job history a run saw
//   _runs/costs/<run id>/units.json                         a backfill's units (Step Functions)
//   ledger/<table>/<day key>=YYYY-MM-DD/<unit>~<ms>-<tag>.json  append-only ledgers
//   _destination.json, _destination-costs.json              which domain and cost scope own it
//   _tmp/.<name>.<pid>-<hex>.tmp                            the directory sink's temporaries
// A leading `_` keeps Athena, Spark and Hive from reading bookkeeping as data.
import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
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
export const TEMP_DIR = '_tmp';
export const JOB_MARKS_PREFIX = `${MANIFESTS_DIR}/cost-jobs/`;

/** The Parquet object of one unit: `<name>` is a data source id or a scope ('domain', a workspace). */
export function objectKey(table: TableLocation, partition: string, name: string): string {
  return `${table.name}/${partitionPath(table, partition)}/${name}.parquet`;
}

export function manifestPrefix(table: TableLocation): string {
  return `${MANIFESTS_DIR}/${table.name}/`;
}

export function manifestKey(table: TableLocation, partition: string, name: string): string {
  return `${manifestPrefix(table)}${partitionPath(table, partition)}/${name}.json`;
}

export function jobMarkKey(dataSourceId: string): string {
  return `${JOB_MARKS_PREFIX}${dataSourceId}.json`;
}

/** A backfill's units, relative to the destination: the plan step writes, the Distributed Map reads. */
export function backfillUnitsKey(runId: string): string {
  return `${RUNS_DIR}/costs/${runId}/units.json`;
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

/** `.<name>.<pid>-<hex>.tmp` (under TEMP_DIR): hidden, and never matching a `*.parquet` or `*.json` glob. */
export function temporaryName(target: string): string {
  return `.${basename(target)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
}

const TEMPORARY = /^\..+\.(\d+)-[0-9a-f]{8}\.tmp$/;

/** The pid of the process that made a temporary of this name; undefined for any other name. */
export function temporaryPid(name: string): number | undefined {
  const match = TEMPORARY.exec(name);
  return match ? Number(match[1]) : undefined;
}
