// Inventory records as a collector would leave them: mostly ACTIVE, a tenth retired, VMs with
// hardware/compute/os data, security groups with instance lists, a few huge `data` values.

import { dayToMs } from './calendar.ts';
import { PRODUCTS, type Provider, REGIONS, SERVICE_TYPES, type ServiceType, TAG_VALUES } from './catalog.ts';
import { omitEmpty } from './omit-empty.ts';
import { hashInts, Rng, stableId } from './prng.ts';
import { serviceData } from './service-data.ts';
import { type Account, type ApiRecord, pastTimestamp, type World } from './world.ts';

export interface CloudService {
  readonly record: ApiRecord;
  readonly metadata: ApiRecord;
}

export interface Inventory {
  readonly services: readonly CloudService[];
  /** Resource ids by `${provider}/${group}/${type}`, for cost rows to point at. */
  readonly resourceIds: ReadonlyMap<string, readonly string[]>;
}

const TOTAL_WEIGHT = SERVICE_TYPES.reduce((sum, t) => sum + t.weight, 0);

function pickType(rng: Rng): ServiceType {
  let roll = rng.next() * TOTAL_WEIGHT;
  for (const type of SERVICE_TYPES) {
    roll -= type.weight;
    if (roll < 0) return type;
  }
  return SERVICE_TYPES[0] as ServiceType;
}

export function buildInventory(world: World, count: number): Inventory {
  const services = Array.from({ length: count }, (_, i) => buildCloudService(world, i));
  // Kept in id order: the usual explicit sort then costs nothing.
  services.sort((a, b) =>
    (a.record['cloud_service_id'] as string) < (b.record['cloud_service_id'] as string) ? -1 : 1,
  );
  const resourceIds = new Map<string, string[]>();
  for (const { record } of services) {
    const key = `${record['provider']}/${record['cloud_service_group']}/${record['cloud_service_type']}`;
    const ids = resourceIds.get(key) ?? [];
    ids.push((record['reference'] as { resource_id: string }).resource_id);
    resourceIds.set(key, ids);
  }
  return { services, resourceIds };
}

function stateOf(i: number): string {
  // Exactly one in ten is retired, so hidden-state tests always have something to hide.
  if (i % 10 !== 7) return 'ACTIVE';
  return i % 20 === 7 ? 'DELETED' : 'DISCONNECTED';
}

function nameOf(type: ServiceType, rng: Rng, i: number): string {
  const stem = rng.pick(TAG_VALUES.Name);
  if (type.kind === 'bucket') return `${stem}-assets-${i}`;
  if (type.kind === 'security-group') return `sg-${stem}`;
  return `${stem}-${String(i).padStart(3, '0')}`;
}

function buildCloudService(world: World, i: number): CloudService {
  const rng = new Rng(hashInts(world.seed, 50, i));
  const type = pickType(rng);
  const account = rng.pick(world.accounts[type.provider]);
  const region = rng.pick(REGIONS[type.provider]);
  const name = nameOf(type, rng, i);
  const resourceId = resourceIdOf(type, rng, account.accountId, region, name);
  const createdAt = pastTimestamp(world, 100 + rng.int(200), 51, i);
  const product = PRODUCTS[type.provider].find((p) => p.billedType === `${type.group}/${type.type}`);
  const isVm = type.kind === 'vm';
  const tags = tagsOf(type.provider, rng, name, i);
  const data = serviceData(type, rng, i, region);
  const record = omitEmpty({
    cloud_service_id: stableId('cloud-svc', world.seed, 'cloud-service', i),
    name,
    state: stateOf(i),
    account: account.accountId,
    instance_type: isVm && product?.instanceTypes ? rng.pick(product.instanceTypes) : '',
    instance_size: (data['hardware'] as { core?: number } | undefined)?.core ?? 0,
    ip_addresses: isVm ? [`10.${rng.int(255)}.${rng.int(255)}.${1 + rng.int(254)}`] : [],
    cloud_service_group: type.group,
    cloud_service_type: type.type,
    provider: type.provider,
    data,
    reference: { resource_id: resourceId, external_link: externalLink(type.provider, region, resourceId) },
    tags,
    tag_keys: Object.fromEntries(Object.entries(tags).map(([p, t]) => [p, Object.keys(t)])),
    region_code: region,
    ref_region: `${type.provider}.${region}`,
    project_id: account.projectId,
    workspace_id: account.workspaceId,
    domain_id: world.domainId,
    collection_info: collectionInfo(world, account, type.provider),
    created_at: createdAt,
    updated_at: pastTimestamp(world, 1 + rng.int(30), 52, i),
    last_seen_at: lastCollected(world),
  });
  return { record, metadata: metadataOf(type) };
}

/** Collectors run daily at 03:00 UTC; the last run was on the range's last day. */
const lastCollected = (world: World): string => new Date(dayToMs(world.toDay) + 3 * 3_600_000).toISOString();

function collectionInfo(world: World, account: Account, provider: Provider): ApiRecord {
  return {
    service_account_id: account.serviceAccountId,
    secret_id: stableId('secret', world.seed, account.accountId),
    collector_id: stableId('collector', world.seed, provider),
    last_collected_at: lastCollected(world),
  };
}

function resourceIdOf(type: ServiceType, rng: Rng, account: string, region: string, name: string): string {
  if (type.provider === 'aws') {
    if (type.kind === 'vm') return `i-0${rng.hex(16)}`;
    if (type.kind === 'security-group') return `sg-0${rng.hex(16)}`;
    if (type.kind === 'bucket') return `arn:aws:s3:::${name}`;
    return `arn:aws:${type.group.toLowerCase()}:${region}:${account}:${type.type.toLowerCase()}:${name}`;
  }
  if (type.provider === 'google_cloud') return `${rng.int(1e9)}${rng.int(1e9)}`;
  const kind = type.kind === 'vm' ? 'Microsoft.Compute/virtualMachines' : 'Microsoft.Storage/storageAccounts';
  return `/subscriptions/${account}/resourceGroups/rg-${region}/providers/${kind}/${name}`;
}

function externalLink(provider: Provider, region: string, resourceId: string): string {
  if (provider === 'aws')
    return `https://console.aws.amazon.com/ec2/v2/home?region=${region}#Instances:${resourceId}`;
  if (provider === 'google_cloud')
    return `https://console.cloud.google.com/compute/instances?id=${resourceId}`;
  return `https://portal.azure.com/#@.onmicrosoft.com/resource${resourceId}/overview`;
}

function tagsOf(
  provider: Provider,
  rng: Rng,
  name: string,
  i: number,
): Record<string, Record<string, string>> {
  if (i % 10 === 4) return {};
  const tags: Record<string, string> = { Name: name, env: rng.pick(TAG_VALUES.env) };
  if (rng.chance(0.6)) tags['team:cost-center'] = `cc-${100 + rng.int(20)}`;
  if (rng.chance(0.4)) tags['k8s.io/role'] = rng.pick(['master', 'node']);
  if (rng.chance(0.3)) tags['Owner Name'] = rng.pick(['Kim Minji', 'Lee Joon', 'Jane Doe']);
  if (rng.chance(0.3)) tags['팀'] = '플랫폼';
  return { [provider]: tags };
}

function metadataOf(type: ServiceType): ApiRecord {
  return {
    view: {
      sub_data: { layouts: [{ name: `${type.type} Details`, type: 'item', options: { fields: [] } }] },
      search: [{ key: 'data.compute.instance_state', name: 'Instance State' }],
    },
  };
}
