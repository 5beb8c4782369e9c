// The inventory snapshot's face: the inventory function (functions/inventory-export.ts) and
// `cloudforet-export inventory` run it. Its input: {"snapshotDate", "includeInactive"}, both optional.
import { parseInventoryEvent } from '../inventory/event.ts';
import { type InventoryRunRequest, type InventoryRunSummary, runInventoryExport } from '../inventory/run.ts';
import { type CloudforetConnection, connectCloudforet } from '../lambda/connect-cloudforet.ts';
import { inventoryTables } from '../tables/inventory.ts';
import type { Face } from './face.ts';

/** The tables one snapshot writes, by name (the CLI's help lists them). */
export const INVENTORY_TABLE_NAMES: readonly string[] = inventoryTables.map((t) => t.name);

export const inventory: Face<CloudforetConnection, InventoryRunRequest, InventoryRunSummary> = {
  label: 'inventory',
  needs: 'cloudforet',
  reportsProgress: true,
  connect: connectCloudforet,
  parse: (input, _settings, now) => parseInventoryEvent(input, now),
  run: ({ session, ...env }, request) =>
    runInventoryExport({ ...env, client: session.client, credential: session.credential }, request),
  describe: describeInventory,
  figures: (s) => ({
    rows: s.rows,
    bytes: s.bytes,
    exported: Object.values(s.tables).filter(
      (t) => t.outcome === 'written' || t.outcome === 'removed' || t.outcome === 'empty',
    ).length,
    failed: s.failed,
    apiRetries: s.requestRetries,
  }),
  failure: (s) =>
    s.failed > 0
      ? `${s.failed} of ${Object.keys(s.tables).length} inventory tables failed: ${JSON.stringify(s.failures)}`
      : undefined,
};

function describeInventory(s: InventoryRunSummary): string[] {
  const inactive = s.includeInactive ? ', inactive included' : '';
  return [
    `inventory snapshot ${s.snapshotDate} (${s.scope}${inactive}) -> ${s.destination}`,
    ...Object.entries(s.tables).map(
      ([table, t]) =>
        `  ${table}: ${t.outcome}, ${t.rows.toLocaleString('en-US')} rows, ${t.bytes.toLocaleString('en-US')} bytes${t.reason ? ` (${t.reason})` : ''}`,
    ),
    `  ${s.rows.toLocaleString('en-US')} rows in ${(s.durationMs / 1000).toFixed(1)} s, ${s.failed} failed`,
    ...s.failures.map((f) => `  FAILED ${f.table}: ${f.message} [${f.code}]`),
  ];
}
