// What a day of costs means to a chargeback: row count and cost sum per (project_id,
// workspace_id, service_account_id). A re-sync that moves rows between projects keeps the day's
// count and sum but changes this; a re-sync that only re-inserts the same rows (new cost_ids, a
// new job_id: every daily sync does that to the whole month) does not.

export const ATTRIBUTION_KEYS = ['project_id', 'workspace_id', 'service_account_id'] as const;

export interface GroupStat {
  /** The attribution, '|'-joined in ATTRIBUTION_KEYS order; an absent field is ''. */
  readonly key: string;
  readonly rows: number;
  readonly costSum: number;
}

export function attributionKey(record: Record<string, unknown>): string {
  return ATTRIBUTION_KEYS.map((k) => (typeof record[k] === 'string' ? record[k] : '')).join('|');
}

/** Adds rows up per attribution, as the export reads them. */
export class FingerprintBuilder {
  private readonly groups = new Map<string, { rows: number; costSum: number }>();

  add(page: readonly Record<string, unknown>[]): void {
    for (const row of page) {
      const key = attributionKey(row);
      const group = this.groups.get(key) ?? { rows: 0, costSum: 0 };
      group.rows++;
      group.costSum += typeof row.cost === 'number' ? row.cost : 0;
      this.groups.set(key, group);
    }
  }

  build(): GroupStat[] {
    return sortGroups([...this.groups].map(([key, g]) => ({ key, ...g })));
  }
}

export function sortGroups(groups: GroupStat[]): GroupStat[] {
  return groups.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** Same groups with the same counts and (to rounding) the same sums. */
export function sameGroups(a: readonly GroupStat[], b: readonly GroupStat[]): boolean {
  const byKey = new Map(b.map((g) => [g.key, g]));
  return (
    a.length === b.length &&
    a.every((g) => {
      const other = byKey.get(g.key);
      return other !== undefined && other.rows === g.rows && sameSum(other.costSum, g.costSum);
    })
  );
}

/** Sums of doubles added in different orders differ in the last bits; a restatement does not. */
export function sameSum(a: number, b: number): boolean {
  return Math.abs(a - b) <= Math.max(1e-6, 1e-9 * Math.max(Math.abs(a), Math.abs(b)));
}
