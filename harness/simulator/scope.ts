// Who sees what: workspace apps are pinned to their workspace; domain apps see the domain
// and may narrow it with the request's own `workspace_id`.

import { permissionDenied } from './api-error.ts';
import { type Predicate, readPath } from './filters.ts';
import type { RouteContext } from './state.ts';
import type { ApiRecord, DataSource } from './world.ts';

/** The workspace a request is limited to, or undefined for the whole domain. */
// python-core handler/mutation_handler.py: a workspace role's params get the token's workspace_id.
export function workspaceScope({ claims, body }: RouteContext): string | undefined {
  const asked =
    typeof body['workspace_id'] === 'string' && body['workspace_id'] !== ''
      ? body['workspace_id']
      : undefined;
  if (claims.rol === 'DOMAIN_ADMIN') return asked;
  if (asked !== undefined && asked !== claims.wid) throw permissionDenied();
  return claims.wid;
}

export function inWorkspace(workspaceId: string | undefined): Predicate[] {
  return workspaceId === undefined ? [] : [(record) => record['workspace_id'] === workspaceId];
}

/** Cost rows of routed data sources carry virtual workspace ids; map them to real ones. */
// cost-analysis manager/cost_manager.py change_filter_v_workspace_id: a workspace filter covers linked v-ids.
export function costInWorkspace(ds: DataSource, workspaceId: string | undefined): Predicate[] {
  if (workspaceId === undefined) return [];
  const virtual = new Set(
    ds.accounts.filter((a) => a.linked && a.workspaceId === workspaceId).map((a) => a.vWorkspaceId),
  );
  return [(row) => row['workspace_id'] === workspaceId || virtual.has(row['workspace_id'] as string)];
}

/** Top-level request fields that act as `eq` conditions (`reference_id` → `reference.resource_id`). */
export function fieldConditions(
  body: Record<string, unknown>,
  mapping: Record<string, string>,
): { predicates: Predicate[]; key: string } {
  const predicates: Predicate[] = [];
  const used: [string, unknown][] = [];
  for (const [field, path] of Object.entries(mapping)) {
    const value = body[field];
    if (value === undefined || value === null || value === '') continue;
    const segments = path.split('.');
    predicates.push((record: ApiRecord) => readPath(record, segments) === value);
    used.push([field, value]);
  }
  return { predicates, key: JSON.stringify(used) };
}
