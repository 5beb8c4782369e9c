// Every table the exporter writes. The CDK stack defines one Glue table per entry.
import type { TableDef } from '../parquet/columns.ts';
import { compactedTables } from './compacted.ts';
import {
  costReportDataTable,
  costReportStatusTable,
  costReportTable,
  reportAdjustmentTable,
} from './cost-reports.ts';
import { costTable } from './costs.ts';
import { focusTable } from './focus.ts';
import { inventoryTables } from './inventory.ts';
import { revisionTables } from './revisions.ts';
import { unifiedCostTable } from './unified-costs.ts';

export const exportTables: ReadonlyArray<TableDef<never, never>> = [
  costTable as TableDef<never, never>,
  focusTable as TableDef<never, never>,
  ...inventoryTables,
  unifiedCostTable() as TableDef<never, never>,
  costReportTable as TableDef<never, never>,
  costReportDataTable as TableDef<never, never>,
  costReportStatusTable as TableDef<never, never>,
  reportAdjustmentTable as TableDef<never, never>,
  ...(compactedTables as ReadonlyArray<TableDef<never, never>>),
  ...revisionTables,
];
