// What a FOCUS row needs from Cloudforet besides names: each data source's cost metadata (what
// its `cost` and `data` keys mean, and which keys this app may not read), and the display names
// inventory gives resource ids. Read once per focus pass, beside the names (names.ts).
import type { CloudforetClient } from '../cloudforet/client.ts';
import { type ApiRecord, type ListRequest, listPages } from '../cloudforet/pager.ts';
import { CloudforetApiError } from '../errors.ts';
import { type CostBasisMeta, costBasisOf } from './rows/basis.ts';

async function all(client: CloudforetClient, req: ListRequest, signal?: AbortSignal): Promise<ApiRecord[]> {
  const rows: ApiRecord[] = [];
  for await (const page of listPages(client, req, signal)) rows.push(...page);
  return rows;
}

/** A listing this app may not call (403) gives nothing: resources then have no names. */
async function allowed(
  client: CloudforetClient,
  req: ListRequest,
  signal?: AbortSignal,
): Promise<ApiRecord[]> {
  try {
    return await all(client, req, signal);
  } catch (error) {
    if (error instanceof CloudforetApiError && error.status === 403) return [];
    throw error;
  }
}

/**
 * data_source_id -> cost metadata. Read here rather than recorded with each costs object because
 * a FOCUS object is derived again for days no run re-exports (archived ones, whose manifests
 * predate any record of it), and focus/ takes nothing from costs/ (.dependency-cruiser.cjs): every
 * object is then derived with the metadata Cloudforet states now. A data source no longer listed
 * has no metadata: its rows take `cost` for every cost column (docs/focus.md).
 */
export async function readCostBases(
  client: CloudforetClient,
  signal?: AbortSignal,
): Promise<Map<string, CostBasisMeta>> {
  const records = await all(
    client,
    { path: '/cost-analysis/data-source/list', idKey: 'data_source_id' },
    signal,
  );
  const bases = new Map<string, CostBasisMeta>();
  for (const r of records) {
    if (typeof r.data_source_id === 'string') bases.set(r.data_source_id, costBasisOf(r));
  }
  return bases;
}

/** What inventory knows of the resources cost rows name, by provider resource id. */
export interface InventoryResources {
  /** The display name a collector gave it (never the id itself). */
  readonly names: Map<string, string>;
  /** Its kind, as inventory files it: `<cloud_service_group> <cloud_service_type>` (FOCUS ResourceType). */
  readonly types: Map<string, string>;
}

/**
 * Provider resource id -> its display name and kind (inventory cloud services, ACTIVE ones, as
 * cloud-service/list returns by default). A name equal to the id is no display name. Only a few
 * small fields are asked for: cloud service records are large.
 */
export async function readResources(
  client: CloudforetClient,
  signal?: AbortSignal,
): Promise<InventoryResources> {
  const records = await allowed(
    client,
    {
      path: '/inventory/cloud-service/list',
      idKey: 'cloud_service_id',
      only: ['name', 'reference.resource_id', 'cloud_service_group', 'cloud_service_type'],
      keyset: true,
    },
    signal,
  );
  const names = new Map<string, string>();
  const types = new Map<string, string>();
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  for (const r of records) {
    const id = str((r.reference as { resource_id?: unknown } | undefined)?.resource_id);
    if (id === undefined) continue;
    const name = str(r.name);
    if (name !== undefined && name !== id) names.set(id, name);
    const kind = [str(r.cloud_service_group), str(r.cloud_service_type)].filter((p) => p !== undefined);
    if (kind.length > 0) types.set(id, kind.join(' '));
  }
  return { names, types };
}
