// Tenants: several Cloudforet domains (or workspaces) exported into one destination, each under a
// folder of its own, `tenants/<id>/`, followed by the single-tenant layout (destination/layout.ts).
// One rule for the id and one for the folder, shared by the CDK settings, the functions and the CLI.

/** The folder under a destination that holds every tenant's folder. */
export const TENANTS_DIR = 'tenants';

const TENANT_ID = /^[a-z0-9](?:[a-z0-9-]{0,18}[a-z0-9])?$/;

/** Why `id` is no tenant id, or undefined when it is one. */
export function tenantIdProblem(id: unknown): string | undefined {
  if (typeof id === 'string' && TENANT_ID.test(id)) return undefined;
  return `a tenant id is 1-20 lower-case letters, digits and hyphens, starting and ending with a letter or digit (got ${JSON.stringify(id)})`;
}

/** A tenant's folder relative to the shared destination: `tenants/<id>`. */
export function tenantPrefix(id: string): string {
  return `${TENANTS_DIR}/${id}`;
}

/** A tenant's Glue database: the stack's database name and the id, `-` as `_` (Glue's rule). */
export function tenantDatabaseName(databaseName: string, id: string): string {
  return `${databaseName}_${id.replaceAll('-', '_')}`;
}

/** `destination` (a folder, or s3://bucket[/prefix]) narrowed to one tenant's folder. */
export function tenantDestination(destination: string, id: string): string {
  return `${destination.replace(/\/+$/, '')}/${tenantPrefix(id)}`;
}

/** What a function needs to serve one tenant: where its Cloudforet is and which secret holds its app. */
export interface TenantConnection {
  readonly endpoint: string;
  readonly secretId: string;
}

/**
 * The functions' EXPORT_TENANTS, compact because Lambda allows 4 KB of environment in all: the
 * endpoints once each, then per tenant the index of its endpoint and its secret.
 */
export interface TenantsEnv {
  readonly endpoints: readonly string[];
  readonly tenants: Readonly<Record<string, readonly [endpoint: number, secretId: string]>>;
}

export function encodeTenants(tenants: ReadonlyMap<string, TenantConnection>): string {
  const endpoints = [...new Set([...tenants.values()].map((t) => t.endpoint))];
  const entries = [...tenants].map(([id, t]) => [id, [endpoints.indexOf(t.endpoint), t.secretId]] as const);
  return JSON.stringify({ endpoints, tenants: Object.fromEntries(entries) } satisfies TenantsEnv);
}

/** EXPORT_TENANTS read back; the problems say what is wrong with it. */
export function decodeTenants(text: string): {
  readonly tenants: ReadonlyMap<string, TenantConnection>;
  readonly problems: readonly string[];
} {
  const tenants = new Map<string, TenantConnection>();
  const problems: string[] = [];
  let parsed: Partial<TenantsEnv>;
  try {
    parsed = JSON.parse(text) as Partial<TenantsEnv>;
  } catch {
    return { tenants, problems: ['EXPORT_TENANTS is not JSON'] };
  }
  const endpoints = Array.isArray(parsed?.endpoints) ? parsed.endpoints : [];
  const entries = parsed?.tenants && typeof parsed.tenants === 'object' ? Object.entries(parsed.tenants) : [];
  if (entries.length === 0) problems.push('EXPORT_TENANTS names no tenant');
  for (const [id, value] of entries) {
    const idProblem = tenantIdProblem(id);
    const [index, secretId] = Array.isArray(value) ? value : [];
    const endpoint = typeof index === 'number' ? endpoints[index] : undefined;
    if (idProblem) problems.push(`EXPORT_TENANTS: ${idProblem}`);
    else if (typeof endpoint !== 'string' || typeof secretId !== 'string' || secretId === '')
      problems.push(`EXPORT_TENANTS: tenant ${id} needs an endpoint and a secret id`);
    else tenants.set(id, { endpoint, secretId });
  }
  return { tenants, problems };
}
