// Which tenant an invocation serves. A stack of tenants gives its functions EXPORT_TENANTS (each
// tenant's endpoint and secret, tenant.ts) and names the tenant in every event: {"tenant": "acme",
// …}. The tenant's endpoint, secret and folder (`<prefix>/tenants/<id>`) then stand in the
// environment readConfig reads, so every use case runs for that tenant alone, unchanged; so does its
// Glue database (FOCUS_GLUE_DATABASE, the stack's name, becomes `<name>_<id>`). Without
// EXPORT_TENANTS the function serves one domain, as before, and an event naming a tenant is refused.

import { ConfigError, EventError } from '../errors.ts';
import { closestName } from '../input/closest-name.ts';
import { joinKey } from '../storage/sink.ts';
import { decodeTenants, tenantDatabaseName, tenantPrefix } from '../tenant.ts';

type Env = Readonly<Record<string, string | undefined>>;

export interface TenantScope {
  /** The environment readConfig reads: the tenant's endpoint, secret and prefix in place. */
  readonly env: Env;
  /** The event without its `tenant`, for the use case to parse. */
  readonly event: unknown;
  /** undefined for a single-domain function. */
  readonly tenant: string | undefined;
}

export function tenantScope(env: Env, event: unknown): TenantScope {
  const fields = event !== null && typeof event === 'object' && !Array.isArray(event) ? event : undefined;
  const named = fields !== undefined && 'tenant' in fields;
  const text = env.EXPORT_TENANTS?.trim();
  if (!text) {
    if (!named) return { env, event, tenant: undefined };
    throw new EventError(
      'EVENT_UNKNOWN_TENANT',
      'this function exports one Cloudforet domain (its stack has no tenants): leave "tenant" out of the event',
    );
  }
  const { tenants, problems } = decodeTenants(text);
  if (problems.length > 0) throw new ConfigError('CONFIG_INVALID', `configuration: ${problems.join('; ')}`);
  const known = [...tenants.keys()];
  if (!named) {
    throw new EventError(
      'EVENT_TENANT_MISSING',
      `this stack exports several tenants: name one in the event, {"tenant": "<id>", …}; the tenants are ${known.join(', ')}`,
    );
  }
  const { tenant: id, ...rest } = fields as { tenant: unknown };
  const connection = typeof id === 'string' ? tenants.get(id) : undefined;
  if (connection === undefined) {
    const near = typeof id === 'string' ? closestName(id, known) : undefined;
    throw new EventError(
      'EVENT_UNKNOWN_TENANT',
      `"tenant": ${JSON.stringify(id)} is not a tenant of this stack${near ? ` (did you mean ${near}?)` : ''}; the tenants are ${known.join(', ')}`,
    );
  }
  const prefix = (env.EXPORT_PREFIX ?? '').trim().replace(/^\/+|\/+$/g, '');
  return {
    env: {
      ...env,
      CLOUDFORET_ENDPOINT: connection.endpoint,
      CLOUDFORET_SECRET_ID: connection.secretId,
      EXPORT_PREFIX: joinKey(prefix, tenantPrefix(id as string)),
      // The stack's database name becomes the tenant's own (its focus table's partitions).
      ...(env.FOCUS_GLUE_DATABASE?.trim() && {
        FOCUS_GLUE_DATABASE: tenantDatabaseName(env.FOCUS_GLUE_DATABASE.trim(), id as string),
      }),
    },
    event: rest,
    tenant: id as string,
  };
}

/** A result as the caller sees it: naming its tenant, so the states after Plan and the console know it. */
export function stampTenant<Res>(result: Res, tenant: string | undefined): Res {
  if (tenant === undefined || result === null || typeof result !== 'object' || Array.isArray(result))
    return result;
  return { tenant, ...result };
}

/**
 * A failure of a tenant's invocation names the tenant first in its message: the Lambda console, the
 * execution's Cause and the alarms' dead-letter messages then say whose run failed.
 */
export function nameTenant(error: unknown, tenant: string | undefined): unknown {
  if (tenant === undefined || !(error instanceof Error)) return error;
  const prefix = `tenant ${tenant}: `;
  if (!error.message.startsWith(prefix)) error.message = `${prefix}${error.message}`;
  return error;
}
