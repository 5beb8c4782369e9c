// Where a cost day (data source, billed date) lives in the destination (destination/layout.ts): light
// on imports, so the backfill summary's bundle needs neither the Cloudforet client nor the encoder.
import { manifestKey, manifestPrefix, objectKey } from '../../destination/layout.ts';
import { costTable } from '../../tables/costs.ts';

export function costObjectKey(dataSourceId: string, date: string): string {
  return objectKey(costTable, date, dataSourceId);
}

export const costManifestPrefix = manifestPrefix(costTable);

export function costManifestKey(dataSourceId: string, date: string): string {
  return manifestKey(costTable, date, dataSourceId);
}
