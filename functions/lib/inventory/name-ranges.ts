// Identity names as validity ranges (the identity_names table, tables/ledger.ts): the daily
// snapshots of workspaces, projects, project groups, service and trusted accounts and the virtual
// workspace routing, folded day by day into one row per id and run of consecutive snapshot days
// with the same name and reference. costs_named_as_of_day then joins each cost row with the ranges
// of its ids (one per rename) instead of every snapshot day's.
//
// The ranges follow the snapshots exactly as the view read them before: a day is named by the
// newest snapshot on or before it that holds the id (the first snapshot for earlier days); an id
// gone from the snapshots keeps its last range open (valid_to null), as it kept its last name.
//
// Each inventory run folds its snapshot day in at its end. The day after the last one folded: the
// ranges are read, the day added. The same day again (a rerun): folded again onto the ranges as
// they were before that day (kept beside the watermark). An earlier day: every snapshot day is
// read again and the ranges rebuilt whole; that is the one write that may hold fewer rows than
// before, and it takes its proof from the gate (destination/gate.ts).
import { addDays } from '../dates.ts';
import { type Proof, proveRebuiltFrom } from '../destination/gate.ts';
import { ledgerRollupKey, ledgerRollupStateKey } from '../destination/layout.ts';
import type { Logger } from '../log.ts';
import { forEachLimit } from '../pool.ts';
import { readParquetObject } from '../published/read-objects.ts';
import type { Sink } from '../storage/sink.ts';
import { identityNamesTable, type NameKind, nameKinds } from '../tables/ledger.ts';

export interface NameRange {
  readonly id: string;
  readonly name: string | null;
  readonly ref: string | null;
  readonly first_seen: string;
  last_seen: string;
  readonly valid_from: string | null;
  valid_to: string | null;
}

/** Per kind, per id, its ranges oldest first. */
export type Ranges = Map<string, Map<string, NameRange[]>>;
/** One snapshot day: per kind, per id, its name and reference. */
export type DayNames = Map<string, Map<string, { name: string | null; ref: string | null }>>;

interface NamesState {
  /** The newest snapshot day folded in. */
  readonly through: string;
  /** The ranges before `through` was folded in (rows per kind): what a rerun of that day starts from. */
  readonly before: Record<string, NameRange[]>;
}

export interface NameRangesSummary {
  readonly day: string;
  readonly how: 'next-day' | 'same-day' | 'rebuilt';
  readonly ranges: number;
  readonly daysRead: number;
}

const READS_AT_ONCE = 8;

/** Adds one snapshot day to the ranges (days must come in order: each after every one before). */
export function foldDay(ranges: Ranges, day: string, names: DayNames): void {
  for (const [kind, ids] of names) {
    const byId = ranges.get(kind) ?? new Map<string, NameRange[]>();
    ranges.set(kind, byId);
    for (const [id, { name, ref }] of ids) {
      const list = byId.get(id) ?? [];
      byId.set(id, list);
      const last = list.at(-1);
      if (last && last.name === name && last.ref === ref && addDays(last.last_seen, 1) === day) {
        last.last_seen = day;
        continue;
      }
      if (last) last.valid_to = day;
      list.push({
        id,
        name,
        ref,
        first_seen: day,
        last_seen: day,
        valid_from: last ? day : null,
        valid_to: null,
      });
    }
  }
}

/** Folds the snapshot day `day` into the ranges: see the module's comment for how. */
export async function updateNameRanges(sink: Sink, day: string): Promise<NameRangesSummary> {
  const stateKey = ledgerRollupStateKey(identityNamesTable);
  const state = parseState(await sink.read(stateKey));
  if (state && day >= state.through) {
    const same = day === state.through;
    const ranges = same ? fromRows(state.before) : await readRanges(sink);
    const before = same ? state.before : toRows(ranges);
    foldDay(ranges, day, await readDay(sink, day));
    await writeRanges(sink, ranges);
    await sink.put(
      stateKey,
      JSON.stringify({ through: day, before } satisfies NamesState),
      'application/json',
    );
    return { day, how: same ? 'same-day' : 'next-day', ranges: count(ranges), daysRead: 1 };
  }
  return { ...(await rebuildNameRanges(sink)), day };
}

/** The ranges rebuilt from every published snapshot day (the first time, or after an earlier day). */
export async function rebuildNameRanges(sink: Sink): Promise<NameRangesSummary> {
  const keys = await snapshotKeys(sink);
  const days = [...keys.keys()].sort();
  const ranges: Ranges = new Map();
  let before: Record<string, NameRange[]> = {};
  for (const day of days) {
    if (day === days.at(-1)) before = toRows(ranges);
    foldDay(ranges, day, await namesOf(sink, keys.get(day)!));
  }
  const proof = days.length > 0 ? proveRebuiltFrom('identity snapshots', days.length) : undefined;
  await writeRanges(sink, ranges, proof);
  if (days.length > 0) {
    const state: NamesState = { through: days.at(-1)!, before };
    await sink.put(ledgerRollupStateKey(identityNamesTable), JSON.stringify(state), 'application/json');
  }
  return { day: days.at(-1) ?? '', how: 'rebuilt', ranges: count(ranges), daysRead: days.length };
}

/** At an inventory run's end: its failure fails no table, and is logged (the next run rebuilds). */
export async function foldSnapshotDay(sink: Sink, day: string, log: Logger): Promise<void> {
  try {
    log.info('identity names folded', { ...(await updateNameRanges(sink, day)) });
  } catch (error) {
    log.error('identity names not folded; costs_named_as_of_day lags until the next inventory run', {
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

const count = (ranges: Ranges) =>
  [...ranges.values()].reduce((n, byId) => n + [...byId.values()].flat().length, 0);

function toRows(ranges: Ranges): Record<string, NameRange[]> {
  return Object.fromEntries(
    [...ranges].map(([kind, byId]) => [
      kind,
      [...byId.keys()].sort().flatMap((id) => byId.get(id)!.map((r) => ({ ...r }))),
    ]),
  );
}

function fromRows(rows: Record<string, NameRange[]>): Ranges {
  const ranges: Ranges = new Map();
  for (const [kind, list] of Object.entries(rows)) {
    const byId = new Map<string, NameRange[]>();
    for (const r of list) byId.set(r.id, [...(byId.get(r.id) ?? []), { ...r }]);
    ranges.set(kind, byId);
  }
  return ranges;
}

function parseState(text: string | undefined): NamesState | undefined {
  if (!text) return undefined;
  const parsed = JSON.parse(text) as Partial<NamesState>;
  return typeof parsed.through === 'string' && parsed.before ? (parsed as NamesState) : undefined;
}

const rangesKey = (kind: string) => ledgerRollupKey(identityNamesTable, kind, 'ranges');

async function readRanges(sink: Sink): Promise<Ranges> {
  const rows: Record<string, NameRange[]> = {};
  for (const { kind } of nameKinds) rows[kind] = parseLines(await sink.read(rangesKey(kind)));
  return fromRows(rows);
}

const parseLines = (text: string | undefined): NameRange[] =>
  (text ?? '')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as NameRange);

/** One object per kind; fewer rows than it holds only with a proof (a rebuild's). */
async function writeRanges(sink: Sink, ranges: Ranges, proof?: Proof): Promise<void> {
  const rows = toRows(ranges);
  for (const { kind } of nameKinds) {
    const key = rangesKey(kind);
    const list = rows[kind] ?? [];
    const body = list.map((r) => `${JSON.stringify(r)}\n`).join('');
    const held = await sink.read(key);
    if (held === body) continue;
    if (!proof && parseLines(held).length > list.length)
      throw new Error(`${key}: ${list.length} ranges would replace more without a proof`);
    await sink.put(key, body, 'application/x-ndjson');
  }
}

/** Every snapshot object of the name tables, by day. */
async function snapshotKeys(sink: Sink): Promise<Map<string, Array<{ kind: NameKind; key: string }>>> {
  const byDay = new Map<string, Array<{ kind: NameKind; key: string }>>();
  for (const kind of nameKinds) {
    const pattern = new RegExp(`^${kind.table}/snapshot_date=(\\d{4}-\\d{2}-\\d{2})/[^/]+\\.parquet$`);
    for (const key of await sink.list(`${kind.table}/`)) {
      const day = pattern.exec(key)?.[1];
      if (day) byDay.set(day, [...(byDay.get(day) ?? []), { kind, key }]);
    }
  }
  return byDay;
}

async function readDay(sink: Sink, day: string): Promise<DayNames> {
  const keys: Array<{ kind: NameKind; key: string }> = [];
  for (const kind of nameKinds) {
    const folder = `${kind.table}/snapshot_date=${day}/`;
    for (const key of await sink.list(folder))
      if (key.endsWith('.parquet') && !key.slice(folder.length).includes('/')) keys.push({ kind, key });
  }
  return namesOf(sink, keys);
}

const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
const millis = (v: unknown) => (v instanceof Date ? v.getTime() : Number(v ?? 0));

/**
 * One day's names: per kind and id the row of the snapshot exported last (a domain app's and
 * workspace apps' snapshots may sit side by side in one day).
 */
async function namesOf(sink: Sink, keys: ReadonlyArray<{ kind: NameKind; key: string }>): Promise<DayNames> {
  const names: DayNames = new Map();
  const at = new Map<string, number>();
  const files: Array<{ kind: NameKind; key: string; rows: Record<string, unknown>[] }> = [];
  await forEachLimit(keys, READS_AT_ONCE, async ({ kind, key }) => {
    files.push({ kind, key, rows: await readParquetObject(sink, key) });
  });
  files.sort((a, b) => (a.key < b.key ? -1 : 1));
  for (const { kind, rows } of files) {
    const ids = names.get(kind.kind) ?? new Map();
    names.set(kind.kind, ids);
    for (const row of rows) {
      const id = text(row[kind.id]);
      const ref = kind.ref ? text(row[kind.ref]) : null;
      if (id === null || (kind.kind === 'routing' && ref === null)) continue;
      const exported = millis(row.exported_at);
      const seen = `${kind.kind}\u0000${id}`;
      if ((at.get(seen) ?? -Infinity) > exported) continue;
      at.set(seen, exported);
      ids.set(id, { name: kind.name ? text(row[kind.name]) : null, ref });
    }
  }
  return names;
}
