// One daily run across tenants: every tenant's planned units dealt into lanes, each lane a list the
// Distributed Map runs one unit at a time. The caps hold by construction, whatever order Step
// Functions runs the lanes in: a tenant's units lie in at most `perTenant` lanes, an endpoint's in
// at most `perEndpoint`, and there are at most `overall` lanes in all, so no more units than that
// are ever in flight for a tenant, an endpoint or the run. Each lane takes its tenants' units in
// turn (round robin), so no tenant waits for another's backlog.

/** Caps on units in flight: the run, one Cloudforet endpoint, one tenant. */
export interface LaneCaps {
  readonly overall: number;
  readonly perEndpoint: number;
  readonly perTenant: number;
}

/** One tenant's planned units, in plan order, and the endpoint it is served from. */
export interface TenantUnits<U> {
  readonly tenant: string;
  readonly endpoint: string;
  readonly units: readonly U[];
}

/**
 * The lanes of one run. Lanes are shared out between endpoints one at a time (each endpoint up to
 * its cap and its demand) until `overall` is spent, so every endpoint starts at once (with fewer
 * lanes than endpoints, endpoints share lanes, one each); within an endpoint the largest tenants
 * pick their least loaded lanes first, their units dealt over them in turn; each lane then
 * interleaves its tenants. Lanes are listed endpoint by endpoint in turn.
 */
export function planLanes<U>(tenants: readonly TenantUnits<U>[], caps: LaneCaps): U[][] {
  const overall = atLeastOne(caps.overall);
  const perTenant = atLeastOne(caps.perTenant);
  const perEndpoint = atLeastOne(caps.perEndpoint);
  const byEndpoint = new Map<string, TenantUnits<U>[]>();
  for (const t of tenants) {
    if (t.units.length === 0) continue;
    byEndpoint.set(t.endpoint, [...(byEndpoint.get(t.endpoint) ?? []), t]);
  }
  const endpoints = [...byEndpoint.keys()].sort();
  // What each endpoint could use: its cap, or fewer when its tenants' own caps and units allow less.
  const demand = endpoints.map((e) =>
    Math.min(
      perEndpoint,
      byEndpoint.get(e)!.reduce((n, t) => n + Math.min(perTenant, t.units.length), 0),
    ),
  );
  const granted = endpoints.map(() => 0);
  for (let left = overall, moved = true; left > 0 && moved; ) {
    moved = false;
    for (let i = 0; i < endpoints.length && left > 0; i++) {
      if (granted[i]! < demand[i]!) {
        granted[i]!++;
        left--;
        moved = true;
      }
    }
  }
  // Fewer lanes than endpoints: the endpoints left without one get one each, shared below.
  const perEndpointLanes = endpoints.map((e, i) =>
    endpointLanes(byEndpoint.get(e)!, Math.max(1, granted[i]!), perTenant),
  );
  const listed: U[][] = [];
  const most = Math.max(0, ...perEndpointLanes.map((l) => l.length));
  for (let n = 0; n < most; n++) for (const own of perEndpointLanes) if (n < own.length) listed.push(own[n]!);
  if (listed.length <= overall) return listed;
  // Lane k joins lane k mod overall, taking turns with it: one endpoint's single lane stays whole.
  const shared = Array.from({ length: overall }, () => [] as U[][]);
  for (const [k, lane] of listed.entries()) shared[k % overall]!.push(lane);
  return shared.map(interleave);
}

function endpointLanes<U>(tenants: readonly TenantUnits<U>[], count: number, perTenant: number): U[][] {
  const loads = Array.from({ length: count }, () => 0);
  // Per lane, its tenants' units in the order the tenants joined it.
  const shares = Array.from({ length: count }, () => [] as U[][]);
  const order = [...tenants].sort(
    (a, b) => b.units.length - a.units.length || a.tenant.localeCompare(b.tenant),
  );
  for (const t of order) {
    const k = Math.min(perTenant, t.units.length, count);
    const chosen = loads
      .map((load, lane) => ({ load, lane }))
      .sort((a, b) => a.load - b.load || a.lane - b.lane)
      .slice(0, k)
      .map((c) => c.lane);
    const dealt = chosen.map(() => [] as U[]);
    for (const [i, u] of t.units.entries()) dealt[i % k]!.push(u);
    chosen.forEach((lane, i) => {
      shares[lane]!.push(dealt[i]!);
      loads[lane]! += dealt[i]!.length;
    });
  }
  return shares.map(interleave);
}

/** The lists taken in turn, one item each, until all are empty. */
function interleave<U>(lists: readonly (readonly U[])[]): U[] {
  const out: U[] = [];
  const longest = Math.max(0, ...lists.map((l) => l.length));
  for (let i = 0; i < longest; i++) for (const l of lists) if (i < l.length) out.push(l[i]!);
  return out;
}

function atLeastOne(n: number): number {
  return Number.isFinite(n) && n >= 1 ? Math.floor(n) : 1;
}

/** Retries of a unit after a transient failure, as the per-unit Map retries it. */
export const LANE_UNIT_RETRIES = 3;
/** The first wait before a unit's retry; each next one doubles, as the per-unit Map's. */
export const LANE_RETRY_SECONDS = 30;
/** No unit is started with less than this left of the invocation: the lane goes on in the next. */
export const LANE_RESERVE_MS = 5 * 60_000;

/** A Distributed Map item of the run across tenants: one lane, its units in an object of their own. */
export interface LaneItem {
  readonly runId: string;
  readonly bucket: string;
  readonly laneKey: string;
  readonly units: number;
}

/** Where a lane's invocation starts, and the attempt of the unit there (0: its first). */
export interface LaneStep extends LaneItem {
  readonly from?: number;
  readonly attempt?: number;
}

/** Where the next invocation starts; `wait` seconds before it (a unit's retry), `done` when none. */
export interface LaneProgress extends LaneItem {
  readonly from: number;
  readonly attempt: number;
  readonly wait: number;
  readonly done: boolean;
}

export interface LaneDeps<U> {
  readonly units: readonly U[];
  /** Exports one unit; throws as the per-unit Map's invocation does. */
  readonly runUnit: (unit: U) => Promise<unknown>;
  readonly remainingMs: () => number;
}

/**
 * One invocation of a lane: its units from `from` on, one at a time. A unit that fails for good
 * (or after its retries) keeps its failure report and the lane goes on; a transient failure
 * returns so that the state machine waits and calls again at that unit, as the per-unit Map
 * retries it; the invocation returns early when its time runs short. Every error but the unit's
 * own is the lane's: thrown, so the state machine retries the invocation.
 */
export async function runLane<U>(step: LaneStep, deps: LaneDeps<U>): Promise<LaneProgress> {
  const from = step.from ?? 0;
  const item: LaneItem = { runId: step.runId, bucket: step.bucket, laneKey: step.laneKey, units: step.units };
  for (let i = from; i < deps.units.length; i++) {
    if (i > from && deps.remainingMs() < LANE_RESERVE_MS)
      return { ...item, from: i, attempt: 0, wait: 0, done: false };
    const attempt = i === from ? (step.attempt ?? 0) : 0;
    try {
      await deps.runUnit(deps.units[i]!);
    } catch (error) {
      const name = (error as Error)?.name;
      if (name === 'UnitRetryableError' && attempt < LANE_UNIT_RETRIES)
        return {
          ...item,
          from: i,
          attempt: attempt + 1,
          wait: LANE_RETRY_SECONDS * 2 ** attempt,
          done: false,
        };
      // Failed for good, retries spent, or refused: its report (or its absence) says so to Finish.
    }
  }
  return { ...item, from: deps.units.length, attempt: 0, wait: 0, done: true };
}
