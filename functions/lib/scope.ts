// A Cloudforet app sees a whole domain (its token's wid is '*') or one workspace. One rule names
// that scope everywhere: in object names, the destination claim, logs and summaries.

export interface AppScope {
  readonly domainId: string;
  /** '*' for a domain app, else the workspace id (the credential's wid). */
  readonly workspaceId: string;
}

/** The scope's object name within a partition: 'domain', or the workspace id. */
export function scopeName(scope: Pick<AppScope, 'workspaceId'>): string {
  return scope.workspaceId === '*' ? 'domain' : scope.workspaceId;
}

/** The scope as people read it: 'domain domain-…' or 'workspace workspace-…'. */
export function scopeLabel(scope: AppScope): string {
  return scope.workspaceId === '*' ? `domain ${scope.domainId}` : `workspace ${scope.workspaceId}`;
}
