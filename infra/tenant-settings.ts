// The `tenants` setting: several Cloudforet domains (or workspaces) in one stack, each with its own
// id, endpoint and app secret. Given in cdk.json as an array, or with -c as the same array in JSON.
// Every bad value is a problem of its own, naming the tenant by its place and id.
import { closestName } from '../functions/lib/input/closest-name.ts';
import { encodeTenants, tenantIdProblem } from '../functions/lib/tenant.ts';
import { isHttpsUrl } from './setting-values.ts';

export interface TenantSettings {
  /** Lower-case letters, digits and hyphens, at most 20: names its folder, database, workgroup and role. */
  readonly id: string;
  readonly endpoint: string;
  /** The Secrets Manager secret holding the tenant's Cloudforet app (imported by name). */
  readonly secretName: string;
  /** E-mail subscribed to this tenant's alerts alone (a filter on the alerts topic); undefined: none. */
  readonly alertEmail?: string | undefined;
}

const TENANT_KEYS = ['id', 'endpoint', 'secretName', 'alertEmail'];

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The portfolio's name (portfolio-lake.ts), which no tenant may take. */
const RESERVED_ID = 'portfolio';

export const SECRET_NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;

/**
 * The functions' environment may hold 4 KB in all (Lambda's limit); the shared variables take
 * about 1 KB, so the tenants' endpoints and secret names get the rest less a margin.
 */
export const TENANTS_ENV_BUDGET = 2_500;

export const TENANTS_EXAMPLE =
  '[{"id": "acme", "endpoint": "https://console-v2.api.example.com", "secretName": "cloudforet/acme"}]';

/**
 * The tenants of `raw` (an array, or its JSON as a string); undefined when the setting is absent.
 * `defaultEndpoint` (cloudforetEndpoint) stands for a tenant that names none.
 */
export function readTenants(
  raw: unknown,
  defaultEndpoint: string | undefined,
  problems: string[],
): TenantSettings[] | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  let list: unknown = raw;
  if (typeof raw === 'string') {
    try {
      list = JSON.parse(raw);
    } catch {
      problems.push(`tenants must be a JSON array such as ${TENANTS_EXAMPLE} (got ${JSON.stringify(raw)})`);
      return undefined;
    }
  }
  if (!Array.isArray(list) || list.length === 0) {
    problems.push(
      `tenants must be a non-empty array such as ${TENANTS_EXAMPLE} (got ${JSON.stringify(raw)})`,
    );
    return undefined;
  }
  const tenants = list.map((entry, i) => readTenant(entry, i, defaultEndpoint, problems));
  problems.push(...duplicateProblems(tenants));
  const envBytes = encodeTenants(
    new Map(tenants.map((t) => [t.id, { ...t, secretId: t.secretName }])),
  ).length;
  if (envBytes > TENANTS_ENV_BUDGET) {
    problems.push(
      `tenants take ${envBytes} bytes of the functions' environment (EXPORT_TENANTS), over ${TENANTS_ENV_BUDGET} ` +
        '(Lambda allows 4 KB in all): use shorter ids and secret names, or split the tenants across stacks (each with its own prefix)',
    );
  }
  return tenants;
}

function readTenant(
  entry: unknown,
  i: number,
  defaultEndpoint: string | undefined,
  problems: string[],
): TenantSettings {
  const e = (entry !== null && typeof entry === 'object' && !Array.isArray(entry) ? entry : {}) as Record<
    string,
    unknown
  >;
  const at = `tenants[${i}]${typeof e.id === 'string' ? ` (${e.id})` : ''}`;
  if (e !== entry) {
    problems.push(
      `${at} must be an object such as ${TENANTS_EXAMPLE.slice(1, -1)} (got ${JSON.stringify(entry)})`,
    );
    return { id: '', endpoint: '', secretName: '' };
  }
  for (const key of Object.keys(e).filter((k) => !TENANT_KEYS.includes(k))) {
    const near = closestName(key, TENANT_KEYS);
    problems.push(
      `${at}: ${key} is not a tenant key${near ? `; did you mean ${near}?` : `; the keys are ${TENANT_KEYS.join(', ')}`}`,
    );
  }
  const idProblem = tenantIdProblem(e.id);
  if (idProblem) problems.push(`${at}: ${idProblem}`);
  else if (e.id === RESERVED_ID)
    problems.push(
      `${at}: ${RESERVED_ID} is reserved: it names the database and workgroup across every tenant`,
    );
  const endpoint = typeof e.endpoint === 'string' ? e.endpoint.trim().replace(/\/+$/, '') : defaultEndpoint;
  if (endpoint === undefined || endpoint === '')
    problems.push(
      `${at}: endpoint is required (the tenant's Cloudforet API base), or set cloudforetEndpoint as every tenant's default`,
    );
  else if (!isHttpsUrl(endpoint))
    problems.push(
      `${at}: endpoint must be an https:// URL such as https://console-v2.api.example.com (got ${JSON.stringify(e.endpoint)})`,
    );
  const secretName = typeof e.secretName === 'string' ? e.secretName.trim() : '';
  if (e.secretName === undefined)
    problems.push(
      `${at}: secretName is required: the Secrets Manager secret holding the tenant's Cloudforet app (create it first, then deploy)`,
    );
  else if (!SECRET_NAME.test(secretName))
    problems.push(
      `${at}: secretName must be a Secrets Manager secret name (letters, digits and /_+=.@-) (got ${JSON.stringify(e.secretName)})`,
    );
  const alertEmail = typeof e.alertEmail === 'string' ? e.alertEmail.trim() : undefined;
  if (e.alertEmail !== undefined && (alertEmail === undefined || !EMAIL.test(alertEmail)))
    problems.push(`${at}: alertEmail must be an e-mail address (got ${JSON.stringify(e.alertEmail)})`);
  return {
    id: typeof e.id === 'string' ? e.id : '',
    endpoint: endpoint ?? '',
    secretName,
    ...(alertEmail !== undefined && { alertEmail }),
  };
}

function duplicateProblems(tenants: readonly TenantSettings[]): string[] {
  const problems: string[] = [];
  const seen = new Map<string, number>();
  tenants.forEach((t, i) => {
    const first = seen.get(t.id);
    if (t.id !== '' && first !== undefined)
      problems.push(
        `tenants[${i}] (${t.id}): the id is tenants[${first}]'s already; each tenant needs its own`,
      );
    else seen.set(t.id, i);
  });
  const secrets = new Map<string, string>();
  for (const t of tenants) {
    const owner = secrets.get(t.secretName);
    if (t.secretName !== '' && owner !== undefined && owner !== t.id)
      problems.push(
        `tenants ${owner} and ${t.id} share the secret ${t.secretName}: each tenant's app has its own secret, or one tenant would export another's domain`,
      );
    else secrets.set(t.secretName, t.id);
  }
  return problems;
}

/** What a stack of tenants does not take, or takes only short enough for every tenant's names. */
export function tenantProblems(s: {
  readonly tenants?: readonly TenantSettings[] | undefined;
  readonly secretName: string | undefined;
  readonly workgroupName: string;
}): string[] {
  if (s.tenants === undefined) return [];
  const problems: string[] = [];
  if (s.secretName !== undefined) {
    problems.push(
      "secretName is the single domain's secret: with tenants, each tenant names its own (secretName in its entry)",
    );
  }
  const longest = Math.max(...s.tenants.map((t) => t.id.length));
  if (s.workgroupName.length + 1 + longest > 128) {
    problems.push(
      `workgroupName (${s.workgroupName.length} characters) must leave room for '-<tenant id>' within 128`,
    );
  }
  return problems;
}
