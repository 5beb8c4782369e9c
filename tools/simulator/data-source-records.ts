// API records of the cost-analysis catalogue: data sources and their accounts.
// Built per request because last_synchronized_at moves.

import type { SimState } from './state.ts';
import { type ApiRecord, type DataSource, pastTimestamp } from './world.ts';

const CURRENCIES = ['USD', 'KRW', undefined] as const;
const iso = (ms: number): string => new Date(ms).toISOString();

/** The plugin's currency, or undefined when its metadata names none. */
export function dataSourceCurrency(ds: DataSource): string | undefined {
  return CURRENCIES[ds.index % CURRENCIES.length];
}

export function dataSourceRecord(state: SimState, ds: DataSource): ApiRecord {
  const currency = dataSourceCurrency(ds);
  return {
    data_source_id: ds.id,
    name: `${ds.provider} cost ${ds.index + 1}`,
    state: 'ENABLED',
    data_source_type: state.warehouses.has(ds.id) ? 'WAREHOUSE' : 'EXTERNAL',
    provider: ds.provider,
    plugin_info: {
      plugin_id: `plugin-${ds.provider.replace('_', '-')}-cost-mon-datasource`,
      version: '2.1.3',
      metadata: currency ? { currency } : {},
      upgrade_mode: 'AUTO',
    },
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
