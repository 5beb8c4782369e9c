// Ledger files that do not parse (cut short, replaced), found by `costs --verify`. An export_units
// line is the record of one unit version, written from that version's manifest: while the unit's
// manifest is still that version (the same instant), the line is written again from it, byte for
// byte what was first written. An older version's line cannot be rebuilt: its bytes are set aside
// whole under _damaged/ (destination/gate.ts), out of the table Athena reads, and named once. Rollup
// objects are the rollup's own (ledger-rollup.ts sets them aside and rebuilds them).

import { setAsideUnreadable } from '../destination/gate.ts';
import { ledgerPrefix, MANIFESTS_DIR } from '../destination/layout.ts';
import type { Sink } from '../storage/sink.ts';
import { exportUnitsTable } from '../tables/ledger.ts';
import { appendLedger, exportUnitRecord } from './ledger.ts';

export interface LedgerRepair {
  /** Lines written again from their unit's manifest. */
  readonly rebuilt: readonly string[];
  /** The export days of the lines rebuilt (the rollup reads them again). */
  readonly rebuiltDays: readonly string[];
  /** Lines that could not be rebuilt: where their bytes are kept now. */
  readonly setAside: ReadonlyArray<{ readonly key: string; readonly keptAt: string }>;
}

const LINE = new RegExp(
  `^${ledgerPrefix(exportUnitsTable.name)}${exportUnitsTable.partitionKey}=(\\d{4}-\\d\\d-\\d\\d)/(.+)~(\\d+)-[0-9a-f]+\\.json$`,
);

/** Whether `key` is an export_units line (not a rollup object, not another ledger). */
export const isLedgerLine = (key: string): boolean => LINE.test(key);

/** Rebuilds or sets aside each unreadable export_units line of `keys`. */
export async function repairLedgerLines(sink: Sink, keys: readonly string[]): Promise<LedgerRepair> {
  const rebuilt: string[] = [];
  const rebuiltDays = new Set<string>();
  const setAside: Array<{ key: string; keptAt: string }> = [];
  for (const key of keys) {
    const match = LINE.exec(key);
    if (!match) continue;
    const [, day, flat, ms] = match as unknown as [string, string, string, string];
    const manifestKey = `${MANIFESTS_DIR}/${flat.replaceAll('~', '/')}.json`;
    const record = await currentRecord(sink, manifestKey);
    if (record && String(Date.parse(record.exported_at)) === ms) {
      await appendLedger(sink, key, record);
      rebuilt.push(key);
      rebuiltDays.add(day);
    } else setAside.push({ key, keptAt: await setAsideUnreadable(sink, key) });
  }
  return { rebuilt, rebuiltDays: [...rebuiltDays], setAside };
}

async function currentRecord(sink: Sink, manifestKey: string) {
  const text = await sink.read(manifestKey);
  if (text === undefined) return undefined;
  try {
    const manifest = JSON.parse(text) as Record<string, unknown>;
    const name = manifestKey
      .split('/')
      .at(-1)!
      .replace(/\.json$/, '');
    return exportUnitRecord(manifest, name);
  } catch {
    return undefined;
  }
}
