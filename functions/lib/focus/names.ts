// The names a FOCUS row carries and a cost row does not: service and payer accounts, providers,
// regions, resources; and each data source's cost metadata (sources.ts). Read from Cloudforet's
// identity, inventory and cost-analysis verbs once per focus pass.
import type { CloudforetClient } from '../cloudforet/client.ts';
import { type ApiRecord, type ListRequest, listPages } from '../cloudforet/pager.ts';
import { CloudforetApiError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { FocusContext } from '../tables/focus.ts';
import { readCostBases, readResources } from './source-meta.ts';

export type FocusNames = Omit<FocusContext, 'exportedAtMs'>;

/**
 * The names, and what they visibly lack: Cloudforet answers an empty list as `{}`, and so can a
 * broken gateway, so a gap means published FOCUS rows must not be replaced with these names.
 */
export interface FocusNamesRead extends FocusNames {
  readonly gap?: string;
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/** Where providers keep the account id in a trusted account's `data` (AWS, Google Cloud, Azure). */
const PAYER_ACCOUNT_KEYS = ['account_id', 'billing_account_id', 'subscription_id', 'tenant_id', 'project_id'];

async function all(client: CloudforetClient, req: ListRequest, signal?: AbortSignal): Promise<ApiRecord[]> {
  const rows: ApiRecord[] = [];
  for await (const page of listPages(client, req, signal)) rows.push(...page);
  return rows;
}

/**
 * A verb the app may not call (a workspace app and domain-level records): the names it would give
 * fall back as docs/focus.md says. Any other failure fails the pass: a FOCUS object is never
 * rewritten with fewer names because of a passing error.
 */
async function allowedOrEmpty(
  client: CloudforetClient,
  req: ListRequest,
  log: Logger,
  signal?: AbortSignal,
): Promise<{ rows: ApiRecord[]; denied: boolean }> {
  try {
    return { rows: await all(client, req, signal), denied: false };
  } catch (error) {
    if (!(error instanceof CloudforetApiError && error.status === 403)) throw error;
    log.warn('focus names: verb not allowed for this app; its names fall back', { path: req.path });
    return { rows: [], denied: true };
  }
}

export async function readFocusNames(
  client: CloudforetClient,
  log: Logger,
  signal?: AbortSignal,
): Promise<FocusNamesRead> {
  const [accounts, trusted, providers, regions, costBases, resources] = await Promise.all([
    all(client, { path: '/identity/service-account/list', idKey: 'service_account_id' }, signal),
    allowedOrEmpty(
      client,
      { path: '/identity/trusted-account/list', idKey: 'trusted_account_id' },
      log,
      signal,
    ),
    allowedOrEmpty(client, { path: '/identity/provider/list', idKey: 'provider' }, log, signal),
    allowedOrEmpty(client, { path: '/inventory/region/list', idKey: 'region_id' }, log, signal),
    readCostBases(client, signal),
    readResources(client, signal),
  ]);
  const serviceAccounts = new Map<string, { name?: string; trustedAccountId?: string }>();
  for (const a of accounts) {
    const id = str(a.service_account_id);
    if (id) serviceAccounts.set(id, { name: str(a.name), trustedAccountId: str(a.trusted_account_id) });
  }
  const trustedAccounts = new Map<string, { accountId?: string; name?: string }>();
  for (const t of trusted.rows) {
    const id = str(t.trusted_account_id);
    const data = (t.data && typeof t.data === 'object' ? t.data : {}) as Record<string, unknown>;
    const accountId = PAYER_ACCOUNT_KEYS.map((k) => str(data[k])).find((v) => v !== undefined);
    if (id) trustedAccounts.set(id, { accountId, name: str(t.name) });
  }
  const providerNames = new Map<string, string>();
  for (const p of providers.rows) {
    const code = str(p.provider);
    const name = str(p.name);
    if (code && name) providerNames.set(code, name);
  }
  const regionNames = new Map<string, string>();
  for (const r of regions.rows) {
    const key = str(r.region_key);
    const name = str(r.name);
    if (key && name) regionNames.set(key, name);
  }
  // Positive evidence of a short answer: no service accounts at all, or service accounts naming
  // trusted accounts the (allowed) trusted-account listing did not return.
  const unknownPayers = trusted.denied
    ? 0
    : new Set(
        [...serviceAccounts.values()]
          .map((a) => a.trustedAccountId)
          .filter((id) => id !== undefined && !trustedAccounts.has(id)),
      ).size;
  // No data sources at all: every cost basis would fall back to `cost` (sources.ts).
  const gap =
    serviceAccounts.size === 0
      ? 'identity/service-account/list answered no service accounts'
      : costBases.size === 0
        ? 'cost-analysis/data-source/list answered no data sources'
        : unknownPayers > 0
          ? `identity/trusted-account/list lacks ${unknownPayers} trusted accounts that service accounts name`
          : undefined;
  return {
    serviceAccounts,
    trustedAccounts,
    providerNames,
    regionNames,
    costBases,
    resourceNames: resources.names,
    resourceTypes: resources.types,
    ...(gap && { gap }),
  };
}
