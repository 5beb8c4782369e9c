// What a FOCUS row needs from Cloudforet besides names: each data source's cost metadata (what
// its `cost` and `data` keys mean, and which keys this app may not read), and the display names
// inventory gives resource ids. Read once per focus pass, beside the names (names.ts).
import type { CloudforetClient } from '../cloudforet/client.ts';
import { type ApiRecord, type ListRequest, listPages } from '../cloudforet/pager.ts';
import { CloudforetApiError } from '../errors.ts';
import { type CostBasisMeta, costBasisOf } from '../tables/focus-basis.ts';

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

/**
 * Provider resource id -> the display name a collector gave it (inventory cloud services, ACTIVE
 * ones, as cloud-service/list returns by default). A name equal to the id is no display name.
 * Only three small fields are asked for: cloud service records are large.
 */
export async function readResourceNames(
  client: CloudforetClient,
  signal?: AbortSignal,
): Promise<Map<string, string>> {
  const records = await allowed(
    client,
    {
      path: '/inventory/cloud-service/list',
      idKey: 'cloud_service_id',
      only: ['name', 'reference.resource_id'],
      keyset: true,
    },
    signal,
  );
  const names = new Map<string, string>();
  for (const r of records) {
    const id = (r.reference as { resource_id?: unknown } | undefined)?.resource_id;
    const name = r.name;
    if (typeof id === 'string' && id !== '' && typeof name === 'string' && name !== '' && name !== id) {
      names.set(id, name);
    }
  }
  return names;
}
