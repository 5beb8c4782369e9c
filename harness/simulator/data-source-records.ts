// API records of the cost-analysis catalogue: data sources and their accounts.
// Built per request because last_synchronized_at moves.

import { azureDataKeys, azurePluginInfo, azureSetup, DENIED_ACTUAL } from './azure-costs.ts';
import type { SimState } from './state.ts';
import { type ApiRecord, type DataSource, pastTimestamp } from './world.ts';

const CURRENCIES = ['USD', 'KRW', undefined] as const;
const iso = (ms: number): string => new Date(ms).toISOString();

/** The plugin's currency, or undefined when its metadata names none. */
export function dataSourceCurrency(ds: DataSource): string | undefined {
  return CURRENCIES[ds.index % CURRENCIES.length];
}

/**
 * A data source as data-source/list answers `admin` (a DOMAIN_ADMIN caller) or anyone else:
 * cost-analysis service/data_source_service.py `_filter_cost_data_keys_with_permissions_by_data_source_vo`
 * drops the keys permissions.deny names from cost_data_keys for all but a DOMAIN_ADMIN.
 */
export function dataSourceRecord(state: SimState, ds: DataSource, admin = true): ApiRecord {
  const currency = dataSourceCurrency(ds);
  const setup = azureSetup(ds);
  if (setup !== undefined) {
    const deny = setup === 'markup' ? [DENIED_ACTUAL] : [];
    const keys = azureDataKeys(setup).filter((k) => admin || !deny.includes(`data.${k}`));
    return {
      ...commonRecord(state, ds),
      plugin_info: { ...azurePluginInfo(setup, currency), upgrade_mode: 'AUTO' },
      ...(deny.length > 0 && { permissions: { deny } }),
      cost_data_keys: keys,
    };
  }
  return {
    ...commonRecord(state, ds),
    plugin_info: {
      plugin_id: `plugin-${ds.provider.replace('_', '-')}-cost-mon-datasource`,
      version: '2.1.3',
      metadata: currency ? { currency } : {},
      upgrade_mode: 'AUTO',
    },
  };
}

function commonRecord(state: SimState, ds: DataSource): ApiRecord {
  return {
    data_source_id: ds.id,
    name: `${ds.provider} cost ${ds.index + 1}`,
    state: 'ENABLED',
    data_source_type: state.warehouses.has(ds.id) ? 'WAREHOUSE' : 'EXTERNAL',
    provider: ds.provider,
    schedule: { state: 'ENABLED', hours: [16] },
    resource_group: 'DOMAIN',
    workspace_id: '*',
    domain_id: state.world.domainId,
    created_at: ds.createdAt,
    last_synchronized_at: iso(ds.lastSynchronizedMs),
  };
}

export function dataSourceAccountRecords(state: SimState): ApiRecord[] {
  const { world } = state;
  return world.dataSources.flatMap((ds) =>
    ds.accounts.map((account, k) => {
      const createdAt = pastTimestamp(world, 250, 70, ds.index, k);
      const row: ApiRecord = {
        account_id: account.accountId,
        data_source_id: ds.id,
        name: account.name,
        is_sync: true,
        v_workspace_id: account.vWorkspaceId,
      };
      if (account.linked) {
        row['workspace_id'] = account.workspaceId;
        row['project_id'] = account.projectId;
      }
      return {
        ...row,
        service_account_id: account.serviceAccountId,
        domain_id: world.domainId,
        created_at: createdAt,
        updated_at: createdAt,
      };
    }),
  );
}
