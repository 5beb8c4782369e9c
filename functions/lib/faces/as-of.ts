// The as-of face, `cloudforet-export as-of`: a table exactly as a reader saw it at one instant, read
// from the destination alone (the current objects and the revisions kept for good; no Cloudforet
// request), as the saved queries costs_as_of and focus_as_of answer it in Athena. Its input:
// {"table", "at", "from"?, "to"?}, the optional days narrowing which partitions are read.
import { DAY_FORMS, eventDay } from '../dates.ts';
import { EventError } from '../errors.ts';
import { eventFields } from '../input/event-shape.ts';
import { connectSink } from '../lambda/connect-sink.ts';
import { readAsOf, type VersionedTable } from '../published/as-of.ts';
import type { Row } from '../published/read-objects.ts';
import type { Sink } from '../storage/sink.ts';
import { costTable } from '../tables/costs.ts';
import { focusTable } from '../tables/focus.ts';
import type { Face } from './face.ts';

const TABLES: Readonly<Record<string, VersionedTable>> = {
  costs: { name: costTable.name, partitionKey: 'billed_date', stampColumn: 'exported_at' },
  focus: {
    name: focusTable.name,
    partitionKey: 'x_billing_period',
    dayKey: 'x_charge_day',
    stampColumn: 'x_exported_at',
  },
};

export interface AsOfRequest {
  readonly table: string;
  readonly at: Date;
  readonly from?: string;
  readonly to?: string;
}

export interface AsOfResult {
  readonly table: string;
  readonly at: string;
  readonly rows: readonly Row[];
}

const EXAMPLE = '{"table": "costs", "at": "2026-10-03T00:00:00Z"}';

function day(fields: Record<string, unknown>, key: string, now: Date): string | undefined {
  const value = fields[key];
  if (value === undefined) return undefined;
  const named = eventDay(value, now);
  if (named === undefined)
    throw new EventError(
      'EVENT_BAD_DATE',
      `"${key}" must be a day as ${DAY_FORMS} (got ${JSON.stringify(value)})`,
    );
  return named;
}

function parseAsOf(input: unknown, now: Date): AsOfRequest {
  const fields = eventFields(input, ['table', 'at', 'from', 'to'], EXAMPLE) ?? {};
  const table = fields.table;
  if (typeof table !== 'string' || !(table in TABLES)) {
    throw new EventError(
      'EVENT_BAD_TABLE',
      `"table" must be one of ${Object.keys(TABLES).join(', ')} (got ${JSON.stringify(table)})`,
    );
  }
  const at =
    typeof fields.at === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(fields.at) ? new Date(fields.at) : undefined;
  if (!at || Number.isNaN(at.getTime())) {
    throw new EventError(
      'EVENT_BAD_AT',
      `"at" must be an ISO 8601 instant such as 2026-10-03T00:00:00Z (got ${JSON.stringify(fields.at)})`,
    );
  }
  return { table, at, from: day(fields, 'from', now), to: day(fields, 'to', now) };
}

/** A row as JSON: instants as ISO text, big integers as numbers. */
function plain(row: Row): Row {
  return Object.fromEntries(
    Object.entries(row).map(([k, v]) => [
      k,
      v instanceof Date ? v.toISOString() : typeof v === 'bigint' ? Number(v) : v,
    ]),
  );
}

export const asOf: Face<{ readonly sink: Sink }, AsOfRequest, AsOfResult> = {
  label: 'as-of',
  needs: 'sink',
  connect: connectSink,
  parse: (input, _settings, now) => parseAsOf(input, now),
  run: async ({ sink }, { table, at, from, to }) => {
    const spec = TABLES[table]!;
    const dayOf = (p: Record<string, string>) =>
      spec.dayKey ? `${p[spec.partitionKey]}-${p[spec.dayKey]}` : (p[spec.partitionKey] ?? '');
    const keep = (p: Record<string, string>) =>
      (from === undefined || dayOf(p) >= from) && (to === undefined || dayOf(p) <= to);
    const rows = await readAsOf(sink, spec, at, keep);
    return { table, at: at.toISOString(), rows: rows.map(plain) };
  },
  describe: (r) => [
    `${r.table} as of ${r.at}: ${r.rows.length} rows (one JSON object a line)`,
    ...r.rows.map((row) => JSON.stringify(row)),
  ],
  figures: (r) => ({ rows: r.rows.length }),
};
