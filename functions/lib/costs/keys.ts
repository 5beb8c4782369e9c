// Where a cost day's object and manifest live: light on imports, so the backfill summary's
// bundle needs neither the Cloudforet client nor the encoder to find them.
import { manifestKey } from '../storage/manifest.ts';
import { costTable } from '../tables/costs.ts';

export function costObjectKey(dataSourceId: string, date: string): string {
  return `${costTable.name}/${costTable.partitionKey}=${date}/${dataSourceId}.parquet`;
}

export const costManifestPrefix = `_manifests/${costTable.name}/`;

export function costManifestKey(dataSourceId: string, date: string): string {
  return manifestKey(costTable.name, costTable.partitionKey, date, dataSourceId);
}
