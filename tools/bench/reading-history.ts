// The reading stage's longer history (reading.ts): the exporter run for several years, made from
// the year the CLI exported by copying it to the periods before, as the snapshot days are copied.
// Cloudforet keeps 12 months, so older years exist only in the bucket: cost, focus, unified-cost and
// compacted monthly objects, the run ledger's lines (their billed days and export instants moved with them) and a
// snapshot a day. Objects are what the layout costs; rows inside a copy keep their original
// billed_month, which no count of objects or bytes depends on. Then the ledger's rollup and the
// names' ranges are rebuilt whole, as the daily runs of those years would have kept them.
import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { addDays } from '../../functions/lib/dates.ts';
import { ledgerPrefix, ledgerRollupStateKey } from '../../functions/lib/destination/layout.ts';
import { rollUpLedger } from '../../functions/lib/export/ledger-rollup.ts';
import { rebuildNameRanges } from '../../functions/lib/inventory/name-ranges.ts';
import { dirSink } from '../../functions/lib/storage/dir-sink.ts';
import { exportUnitsLatestTable, exportUnitsTable, ledgerTables } from '../../functions/lib/tables/ledger.ts';

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );
const COMPACTED = ['costs_monthly', 'focus_monthly'] as const;
const folders = async (path: string) => (await readdir(path).catch(() => [] as string[])).sort();
const monthOf = (month: string, shift: number) => addDays(`${month}-01`, shift).slice(0, 7);

/** Copies the exported period (`days` long, ending at `to`) to the `periods` before it. */
export async function copyEarlierPeriods(out: string, days: number, periods: number): Promise<void> {
  // Listed once, before any copy: each period is a copy of the exported one, not of the copies.
  const costs = await folders(join(out, 'costs'));
  const focus: Array<[string, string]> = [];
  for (const period of await folders(join(out, 'focus'))) {
    if (!period.startsWith('x_billing_period=')) continue;
    for (const charge of await folders(join(out, 'focus', period))) focus.push([period, charge]);
  }
  const months = await folders(join(out, 'unified_costs'));
  // The compacted months (costs_monthly, focus_monthly): a month folder each, copied as the unified
  // costs are. The copy of the open month has none (its days are not read by the combined views).
  const compacted = new Map<string, string[]>();
  for (const table of COMPACTED) compacted.set(table, await folders(join(out, table)));
  const ledgers = new Map<string, string[]>();
  for (const table of ledgerTables.filter((t) => !t.values)) {
    ledgers.set(
      table.name,
      (await folders(join(out, ledgerPrefix(table.name)))).filter((f) => f.includes('=')),
    );
  }
  for (let k = 1; k <= periods; k++) {
    const shift = -k * days;
    for (const folder of costs) {
      const day = folder.split('=')[1]!;
      await cp(join(out, 'costs', folder), join(out, 'costs', `billed_date=${addDays(day, shift)}`), {
        recursive: true,
      });
    }
    for (const [period, charge] of focus) {
      const day = addDays(`${period.split('=')[1]}-${charge.split('=')[1]}`, shift);
      const target = join(
        out,
        'focus',
        `x_billing_period=${day.slice(0, 7)}`,
        `x_charge_day=${day.slice(8)}`,
      );
      await cp(join(out, 'focus', period, charge), target, { recursive: true });
    }
    for (const folder of months) {
      const target = join(out, 'unified_costs', `billed_month=${monthOf(folder.split('=')[1]!, shift)}`);
      if (!(await exists(target))) await cp(join(out, 'unified_costs', folder), target, { recursive: true });
    }
    for (const [table, monthFolders] of compacted) {
      for (const folder of monthFolders) {
        const [key, month] = folder.split('=') as [string, string];
        const target = join(out, table, `${key}=${monthOf(month, shift)}`);
        if (!(await exists(target))) await cp(join(out, table, folder), target, { recursive: true });
      }
    }
    for (const table of ledgerTables.filter((t) => !t.values)) {
      await copyLedger(out, table, ledgers.get(table.name)!, shift, k);
    }
  }
}

/** A ledger table's lines, moved `shift` days: their folder, billed day or month, and instant. */
async function copyLedger(
  out: string,
  table: (typeof ledgerTables)[number],
  days: readonly string[],
  shift: number,
  k: number,
): Promise<void> {
  const root = join(out, ledgerPrefix(table.name));
  for (const folder of days) {
    const day = addDays(folder.split('=')[1]!, shift);
    const target = join(root, `${table.partitionKey}=${day}`);
    await mkdir(target, { recursive: true });
    for (const file of await folders(join(root, folder))) {
      const lines = (await readFile(join(root, folder, file), 'utf8')).split('\n').filter(Boolean);
      const moved = lines.map((text) => {
        const line = JSON.parse(text) as Record<string, unknown>;
        for (const [key, value] of Object.entries(line)) {
          if (typeof value !== 'string') continue;
          if (/^\d{4}-\d\d-\d\d$/.test(value)) line[key] = addDays(value, shift);
          else if (/^\d{4}-\d\d$/.test(value)) line[key] = monthOf(value, shift);
          else if (/^\d{4}-\d\d-\d\dT/.test(value) && key.endsWith('_at'))
            line[key] = new Date(Date.parse(value) + shift * 86_400_000).toISOString();
        }
        return JSON.stringify(line);
      });
      await writeFile(join(target, file.replace(/\.json$/, `-h${k}.json`)), `${moved.join('\n')}\n`);
    }
  }
}

/** The rollup and the ranges rebuilt from everything there now (no watermark: every line read). */
export async function rebuildDerived(out: string): Promise<void> {
  const sink = dirSink(out);
  await rm(join(out, ledgerPrefix(exportUnitsLatestTable.name)), { recursive: true, force: true });
  await rm(join(out, ledgerRollupStateKey(exportUnitsLatestTable)), { force: true });
  const rolled = await rollUpLedger(sink, new Date(), Number.POSITIVE_INFINITY);
  const named = await rebuildNameRanges(sink);
  process.stderr.write(
    `reading: ${exportUnitsTable.name} rolled up (${rolled.linesRead} lines, ${rolled.units} units); ` +
      `identity_names rebuilt from ${named.daysRead} snapshot days (${named.ranges} ranges)\n`,
  );
}
