// Cost data sources as the exporter needs them: id, currency, last sync, account routing.
import type { CloudforetClient } from '../../cloudforet/client.ts';
import { type ApiRecord, listPages } from '../../cloudforet/pager.ts';
import { JOB_MARKS_PREFIX, ledgerRollupKey } from '../../destination/layout.ts';
import { CloudforetApiError, EventError, ExportError } from '../../errors.ts';
import type { Sink } from '../../storage/sink.ts';
import { costTable } from '../../tables/costs.ts';
import { exportUnitsLatestTable } from '../../tables/ledger.ts';

export interface DataSourceInfo {
  readonly id: string;
  readonly name: string;
  readonly provider: string | undefined;
  /** plugin_info.metadata.currency; USD when the plugin names none. */
  readonly currency: string;
  readonly lastSynchronizedAt: string | undefined;
  /** data_source_type: EXTERNAL, or WAREHOUSE (whose costs current releases cannot list). */
  readonly type?: string;
}

export async function listDataSources(client: CloudforetClient): Promise<DataSourceInfo[]> {
  const found: DataSourceInfo[] = [];
  for await (const page of listPages(client, {
    path: '/cost-analysis/data-source/list',
    idKey: 'data_source_id',
  })) {
    for (const r of page) found.push(toInfo(r));
  }
  return found;
}

/**
 * data-source/list answered none (Cloudforet omits an empty list: `{}`, which a broken proxy sends
 * too): the destination says whether that can be so. Where it holds the costs of data sources (a
 * job mark each, or the ledger's rollup of their units), the answer proves nothing and the run
 * fails naming them, rather than export nothing with exit 0.
 */
export async function checkNoneListed(sink: Sink): Promise<void> {
  const rollup = ledgerRollupKey(exportUnitsLatestTable, costTable.name, '');
  const [marks, rolled] = await Promise.all([
    sink.list(JOB_MARKS_PREFIX),
    sink.list(rollup.slice(0, rollup.lastIndexOf('/') + 1)),
  ]);
  const name = (key: string) => key.slice(key.lastIndexOf('/') + 1).replace(/\.json$/, '');
  const known = [...new Set([...marks, ...rolled].filter((k) => k.endsWith('.json')).map(name))].sort();
  if (known.length === 0) return;
  throw new ExportError(
    'CLOUDFORET_NO_DATA_SOURCES',
    `cost-analysis/data-source/list answered no data sources, while this destination holds the costs of ${known.length} ` +
      `(${known.slice(0, 5).join(', ')}${known.length > 5 ? ', …' : ''}): an empty answer from a proxy or gateway proves nothing, ` +
      'so nothing was exported. Check the endpoint (`check`), and rerun; if every data source was removed in Cloudforet, ' +
      'there is nothing left to export: stop the schedule.',
  );
}

/** The data sources asked for (all when none are named); an unknown id is an error naming it. */
export function selectDataSources(
  all: readonly DataSourceInfo[],
  wanted: readonly string[] | undefined,
): DataSourceInfo[] {
  if (!wanted || wanted.length === 0) return [...all];
  const byId = new Map(all.map((d) => [d.id, d]));
  const unknown = wanted.filter((id) => !byId.has(id));
  if (unknown.length > 0) {
    throw new EventError(
      'UNKNOWN_DATA_SOURCE',
      `unknown data source id(s): ${unknown.join(', ')}; this app sees: ${all.map((d) => d.id).join(', ') || 'none'}`,
    );
  }
  return wanted.map((id) => byId.get(id)!);
}

/**
 * v_workspace_id -> real workspace_id (undefined when the account is not linked). Cloudforet lets
 * DOMAIN_ADMIN and WORKSPACE_OWNER list data-source accounts, not a WORKSPACE_MEMBER
 * (docs/cloudforet-behaviour.md): a member app gets no mapping rather than a failed run, and its
 * rows of routed accounts keep no workspace.
 */
export async function virtualWorkspaceMap(client: CloudforetClient): Promise<AccountLinks> {
  const map = new AccountLinks(true);
  try {
    await readAccountLinks(client, map);
  } catch (error) {
    if (error instanceof CloudforetApiError && error.status === 403) return new AccountLinks(false);
    throw error;
  }
  return map;
}

/**
 * The account links as read: `readable` false when the app may not list them (403). An answer
 * with no link at all (`{}`) proves nothing: rows that carry a virtual id then fail their unit
 * (`ACCOUNT_LINKS_MISSING`, export/day) rather than lose their workspace.
 */
export class AccountLinks extends Map<string, string | undefined> {
  constructor(readonly readable: boolean) {
    super();
  }
}

/** Throws when a row carries a virtual workspace id and the links, readable, came back with none. */
export function expectLinksFor(workspaceId: unknown, links: ReadonlyMap<string, string | undefined>): void {
  if (typeof workspaceId !== 'string' || !workspaceId.startsWith('v-workspace-')) return;
  if (links.size > 0 || (links instanceof AccountLinks && !links.readable)) return;
  throw new AccountLinksMissingError(
    `a cost row carries the virtual workspace ${workspaceId}, but /cost-analysis/data-source-account/list ` +
      'answered no account link at all: the published rows keep their workspace; rerun, and check what ' +
      'stands before the API (a proxy answering {}?) if it persists',
  );
}

export class AccountLinksMissingError extends ExportError {
  readonly retryable = true;
  constructor(message: string) {
    super('ACCOUNT_LINKS_MISSING', message);
  }
}

async function readAccountLinks(
  client: CloudforetClient,
  map: Map<string, string | undefined>,
): Promise<void> {
  const req = {
    path: '/cost-analysis/data-source-account/list',
    sort: ['data_source_id'],
    idKey: 'account_id',
    identify: (r: ApiRecord) => `${String(r.data_source_id)}/${String(r.account_id)}`,
  };
  for await (const page of listPages(client, req)) {
    for (const r of page) {
      if (typeof r.v_workspace_id === 'string') {
        map.set(r.v_workspace_id, typeof r.workspace_id === 'string' ? r.workspace_id : undefined);
      }
    }
  }
}

function toInfo(r: ApiRecord): DataSourceInfo {
  const plugin = r.plugin_info as { metadata?: { currency?: unknown } } | undefined;
  const currency = plugin?.metadata?.currency;
  return {
    id: String(r.data_source_id),
    name: typeof r.name === 'string' ? r.name : String(r.data_source_id),
    provider: typeof r.provider === 'string' ? r.provider : undefined,
    currency: typeof currency === 'string' && currency !== '' ? currency : 'USD',
    lastSynchronizedAt: typeof r.last_synchronized_at === 'string' ? r.last_synchronized_at : undefined,
    type: typeof r.data_source_type === 'string' ? r.data_source_type : undefined,
  };
}
