// Every table the exporter writes. The CDK stack defines one Glue table per entry.
import type { TableDef } from './columns.ts';
import { costTable } from './cost-columns.ts';
import { inventoryTables } from './inventory-columns.ts';

export const exportTables: ReadonlyArray<TableDef<never, never>> = [
  costTable as TableDef<never, never>,
  ...inventoryTables,
];
