// The cost job's step names in their one order, and how the scheduled state machine slices them
// into states. Plain data: the stack (infra/backfill-state-machine.ts) builds its definition from
// it, the local runner (harness/state-machine.ts) walks it, and steps.ts implements exactly these
// names in this order (test/system/costs/cost-job.test.ts holds all three to it).

/** Every step of a cost job, in the order every path runs them. */
export const COST_JOB_STEPS = [
  'prepare',
  'plan',
  'units',
  'jobMarks',
  'unified',
  'costReports',
  'focus',
  'compaction',
  'verify',
  'rollup',
  'summary',
] as const;

export type CostStepName = (typeof COST_JOB_STEPS)[number];

export interface CostJobState {
  /** The state's name in the definition. */
  readonly state: string;
  /** The Lambda entry (functions/<entry>.ts) the state invokes. */
  readonly entry: string;
  /** The function's construct id in the stack (Backfill<id>Function): kept across releases. */
  readonly functionId: string;
  readonly steps: readonly CostStepName[];
  /** One invocation per planned unit (a Distributed Map over the units the plan wrote). */
  readonly map?: true;
}

/**
 * The scheduled job: Plan writes the units and the job's state to S3, a Distributed Map runs each
 * unit in its own invocation, Finish runs every step after the units on the state as Plan left it,
 * and Summary reports and fails the execution on any failure or work left.
 */
export const COST_JOB_STATES: readonly CostJobState[] = [
  { state: 'Plan', entry: 'backfill-plan', functionId: 'Plan', steps: ['prepare', 'plan'] },
  { state: 'ExportUnits', entry: 'backfill-unit', functionId: 'Unit', steps: ['units'], map: true },
  {
    state: 'Finish',
    entry: 'backfill-finish',
    functionId: 'Finish',
    steps: ['jobMarks', 'unified', 'costReports', 'focus', 'compaction', 'verify', 'rollup'],
  },
  { state: 'Summary', entry: 'backfill-summary', functionId: 'Summary', steps: ['summary'] },
];

/** What every state but the Map passes to the next: the job's keys, never its state. */
export interface CostJobRef {
  readonly runId: string;
  readonly bucket: string;
  /** The state's key in the bucket (job-store.ts). */
  readonly jobObjectKey: string;
  /** The Map's items (the planned units), for its ItemReader. */
  readonly unitsObjectKey: string;
  /** Units planned: the Map is skipped when 0. */
  readonly units: number;
}

/**
 * The daily run across tenants (a stack of tenants, infra/tenants-run.ts): the states of
 * COST_JOB_STATES before the Map run for each tenant, the Map's units run in shared lanes (its
 * function given a lane, costs/job/lanes.ts), the states after it for each tenant as the job's own
 * definition chains them, then one state that sums up every tenant.
 */
export const TENANTS_RUN_STATES = {
  /** Deals the planned units into lanes. */
  lanes: { state: 'Lanes', entry: 'tenants-lanes', functionId: 'TenantsLanes' },
  /** Each tenant's outcome summed up; fails the execution naming every failed tenant. */
  summary: { state: 'TenantsSummary', entry: 'tenants-summary', functionId: 'TenantsSummary' },
  /** Tenants whose per-tenant states run at once (their Plan talks to their Cloudforet). */
  planConcurrency: 8,
} as const;
