// The daily run across tenants (infra/tenants-run.ts): each tenant's cost job as its own (Plan,
// Finish and Summary run per tenant, unchanged), its units run in shared lanes (lanes.ts) by one
// Distributed Map. Here: the Lanes state (every planned tenant's units dealt under the caps) and
// the last state (each tenant's outcome gathered, a metric per tenant, the lanes removed).

import { ownScratch, removeProven } from '../../destination/gate.ts';
import { tenantsRunPrefix } from '../../destination/layout.ts';
import { EventError } from '../../errors.ts';
import { forEachLimit } from '../../pool.ts';
import { joinKey, type Sink } from '../../storage/sink.ts';
import type { TenantConnection } from '../../tenant.ts';
import type { UnitItem } from './fan-out.ts';
import type { StateError } from './job-ref.ts';
import { interleave, type LaneCaps, type LaneItem, planShares, takeShare } from './lanes.ts';

/** What the run's shared states work in: the bucket (keys whole), the shared prefix, the tenants. */
export interface SharedDestination {
  readonly sink: Sink;
  readonly bucket: string;
  readonly prefix: string;
  readonly tenants: ReadonlyMap<string, TenantConnection>;
}

/** One tenant's Plan as the run's first state left it: its output, or the error it was caught with. */
export interface PlannedTenant {
  readonly tenant: string;
  readonly unitsObjectKey?: string;
  readonly units?: number;
  readonly planError?: StateError;
}

export interface LanesRequest {
  readonly runId: string;
  readonly planned: readonly PlannedTenant[];
  readonly caps: LaneCaps;
}

export interface LanesOutput {
  readonly runId: string;
  readonly bucket: string;
  /** The lanes' list, for the Distributed Map's ItemReader (a key in `bucket`). */
  readonly lanesObjectKey: string;
  readonly lanes: number;
  readonly units: number;
}

export function parseLanesRequest(event: unknown): LanesRequest {
  const e = (event ?? {}) as Partial<LanesRequest>;
  const caps = e.caps as Partial<LaneCaps> | undefined;
  const capsOk =
    caps && [caps.overall, caps.perEndpoint, caps.perTenant].every((n) => Number.isInteger(n) && n! >= 1);
  if (typeof e.runId !== 'string' || e.runId === '' || !Array.isArray(e.planned) || !capsOk) {
    throw new EventError(
      'EVENT_BAD_PLAN',
      'the Lanes state takes {"runId", "planned": [each tenant\'s Plan output], "caps": {"overall", "perEndpoint", "perTenant"}}, as the daily run across tenants passes it',
    );
  }
  return { runId: e.runId, planned: e.planned.filter(isPlanned), caps: caps as LaneCaps };
}

function isPlanned(p: unknown): p is PlannedTenant {
  return typeof (p as PlannedTenant)?.tenant === 'string';
}

/**
 * Deals every planned tenant's units into lanes and writes each lane and their list. The dealing
 * takes counts only (lanes.ts planShares); each lane is then written alone, each tenant's share
 * taken from its list as it is read, so memory holds one lane, not the run's every unit.
 */
export async function writeLanes(entry: SharedDestination, request: LanesRequest): Promise<LanesOutput> {
  const { sink, bucket, prefix, tenants } = entry;
  const planned = request.planned.filter((p) => !p.planError && (p.units ?? 0) > 0 && p.unitsObjectKey);
  const shares = planShares(
    planned.map((p) => {
      const endpoint = tenants.get(p.tenant)?.endpoint;
      if (endpoint === undefined)
        throw new EventError(
          'EVENT_UNKNOWN_TENANT',
          `the plan names tenant ${p.tenant}, which this stack does not have`,
        );
      return { tenant: p.tenant, endpoint, count: p.units! };
    }),
    request.caps,
  );
  const unitsOf = async (t: number): Promise<readonly UnitItem[]> => {
    const p = planned[t]!;
    const text = await sink.read(p.unitsObjectKey!);
    const units = text === undefined ? undefined : (JSON.parse(text) as UnitItem[]);
    if (units === undefined || units.length !== p.units)
      throw new EventError(
        'EVENT_BAD_PLAN',
        `tenant ${p.tenant}: its planned units (${p.unitsObjectKey}) are gone or not the ${p.units} its Plan reported: start the run again`,
      );
    return units;
  };
  const folder = joinKey(prefix, tenantsRunPrefix(request.runId));
  const items: LaneItem[] = [];
  for (const [n, lane] of shares.entries()) {
    // Each share taken as its tenant's list is read, as JSON text (a tenth of the objects' size),
    // the rest of the list let go at once; the lane then streamed out a megabyte at a time.
    const lists: string[][] = [];
    await forEachLimit(lane, 4, async (share, i) => {
      lists[i] = takeShare(await unitsOf(share.tenant), share).map((u) => JSON.stringify(u));
    });
    const units = interleave(lists);
    const laneKey = `${folder}${n}.json`;
    await writeJsonList(sink, laneKey, units);
    items.push({ runId: request.runId, bucket, laneKey, units: units.length });
  }
  const lanesObjectKey = `${folder}lanes.json`;
  await sink.put(lanesObjectKey, JSON.stringify(items), 'application/json');
  return {
    runId: request.runId,
    bucket,
    lanesObjectKey,
    lanes: items.length,
    units: items.reduce((n, l) => n + l.units, 0),
  };
}

/** A JSON list of items already JSON, written whole or not at all, in chunks of about a megabyte. */
async function writeJsonList(sink: Sink, key: string, items: readonly string[]): Promise<void> {
  const out = sink.begin(key, 'application/json');
  try {
    let chunk = '[';
    for (const [i, item] of items.entries()) {
      chunk += (i === 0 ? '' : ',') + item;
      if (chunk.length >= 1 << 20) {
        await out.write(Buffer.from(chunk));
        chunk = '';
      }
    }
    await out.write(Buffer.from(`${chunk}]`));
    await out.commit();
  } catch (error) {
    await out.abort();
    throw error;
  }
}

/** A tenant's figures as its Summary returned them (the run keeps these few). */
export interface TenantFigures {
  readonly units: number;
  readonly written: number;
  readonly unchanged: number;
  readonly failed: number;
}

/** What the per-tenant states left for one tenant: its Summary's figures, or the errors caught. */
export interface TenantOutcome {
  readonly tenant: string;
  readonly summary?: TenantFigures;
  readonly planError?: StateError;
  readonly finishError?: StateError;
  readonly summaryError?: StateError;
}

export interface TenantsOutcomeRequest {
  readonly runId: string;
  readonly outcomes: readonly TenantOutcome[];
}

export interface TenantsRunSummary {
  readonly runId: string;
  readonly tenants: number;
  readonly succeeded: readonly string[];
  readonly failed: ReadonlyArray<{ readonly tenant: string; readonly state: string; readonly error: string }>;
  readonly units: number;
  readonly written: number;
  readonly unchanged: number;
  readonly failedUnits: number;
  /** Each tenant's figures of the run (0 for none): published under its id, what its alarm watches. */
  readonly perTenant: ReadonlyArray<{
    readonly tenant: string;
    readonly failed: number;
    readonly exported: number;
    readonly unchanged: number;
  }>;
}

export function parseTenantsOutcome(event: unknown): TenantsOutcomeRequest {
  const e = (event ?? {}) as Partial<TenantsOutcomeRequest>;
  if (typeof e.runId !== 'string' || e.runId === '' || !Array.isArray(e.outcomes)) {
    throw new EventError(
      'EVENT_BAD_PLAN',
      'the last state of the daily run across tenants takes {"runId", "outcomes": [each tenant\'s outcome]}, as the run passes it',
    );
  }
  return { runId: e.runId, outcomes: e.outcomes.filter(isPlanned) };
}

/** Each tenant's outcome summed up, with its figures; the run's lanes removed. */
export async function tenantsSummary(
  entry: SharedDestination,
  request: TenantsOutcomeRequest,
): Promise<TenantsRunSummary> {
  const failed: { tenant: string; state: string; error: string }[] = [];
  const perTenant: { tenant: string; failed: number; exported: number; unchanged: number }[] = [];
  const sum = (pick: (f: TenantFigures) => number) =>
    request.outcomes.reduce((n, o) => n + (o.summary ? pick(o.summary) : 0), 0);
  for (const o of request.outcomes) {
    const caught = o.planError
      ? (['Plan', o.planError] as const)
      : o.summaryError
        ? ([o.finishError ? 'Finish' : 'Summary', o.summaryError] as const)
        : undefined;
    if (caught) failed.push({ tenant: o.tenant, state: caught[0], error: causeOf(caught[1]) });
    perTenant.push({
      tenant: o.tenant,
      failed: caught ? Math.max(1, o.summary?.failed ?? 0) : (o.summary?.failed ?? 0),
      exported: o.summary?.written ?? 0,
      unchanged: o.summary?.unchanged ?? 0,
    });
  }
  const folder = joinKey(entry.prefix, tenantsRunPrefix(request.runId));
  for (const key of await entry.sink.list(folder))
    await removeProven(entry.sink, key, ownScratch('a finished run’s lanes'));
  return {
    runId: request.runId,
    tenants: request.outcomes.length,
    succeeded: request.outcomes
      .filter((o) => !failed.some((f) => f.tenant === o.tenant))
      .map((o) => o.tenant),
    failed,
    units: sum((f) => f.units),
    written: sum((f) => f.written),
    unchanged: sum((f) => f.unchanged),
    failedUnits: sum((f) => f.failed),
    perTenant,
  };
}

/** A caught Lambda error's message (its Cause is the error as JSON), cut to a line. */
function causeOf(error: StateError): string {
  let message = error.Cause ?? '';
  try {
    const parsed = JSON.parse(message) as { errorMessage?: string };
    if (typeof parsed.errorMessage === 'string') message = parsed.errorMessage;
  } catch {
    // A Cause that is not JSON is the message itself.
  }
  return `${error.Error ?? 'Error'}: ${message}`.slice(0, 300);
}
