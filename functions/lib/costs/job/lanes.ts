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

/** A tenant's share of a lane: its units whose place in its plan is `offset` modulo `stride`. */
export interface LaneShare {
  /** The tenant's place in the list given to planShares. */
  readonly tenant: number;
  readonly offset: number;
  readonly stride: number;
}

/**
 * The lanes of one run, each as its tenants' shares: planShares works on counts alone, so dealing
 * two million units takes no more memory than their number of tenants. Lanes are shared out
 * between endpoints one at a time (each endpoint up to its cap and its demand) until `overall` is
 * spent, so every endpoint starts at once (with fewer lanes than endpoints, endpoints share
 * lanes, one each); within an endpoint the largest tenants pick their least loaded lanes first,
 * their units dealt over them in turn. Lanes are listed endpoint by endpoint in turn.
 */
export function planShares(
  tenants: ReadonlyArray<{ readonly tenant: string; readonly endpoint: string; readonly count: number }>,
  caps: LaneCaps,
): LaneShare[][] {
  const overall = atLeastOne(caps.overall);
  const perTenant = atLeastOne(caps.perTenant);
  const perEndpoint = atLeastOne(caps.perEndpoint);
  const byEndpoint = new Map<string, number[]>();
  tenants.forEach((t, i) => {
    if (t.count > 0) byEndpoint.set(t.endpoint, [...(byEndpoint.get(t.endpoint) ?? []), i]);
  });
  const endpoints = [...byEndpoint.keys()].sort();
  // What each endpoint could use: its cap, or fewer when its tenants' own caps and units allow less.
  const demand = endpoints.map((e) =>
    Math.min(
      perEndpoint,
      byEndpoint.get(e)!.reduce((n, i) => n + Math.min(perTenant, tenants[i]!.count), 0),
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
    endpointShares(tenants, byEndpoint.get(e)!, Math.max(1, granted[i]!), perTenant),
  );
  const listed: LaneShare[][] = [];
  const most = Math.max(0, ...perEndpointLanes.map((l) => l.length));
  for (let n = 0; n < most; n++) for (const own of perEndpointLanes) if (n < own.length) listed.push(own[n]!);
  if (listed.length <= overall) return listed;
  // Lane k joins lane k mod overall: one endpoint's single lane stays whole.
  const shared = Array.from({ length: overall }, () => [] as LaneShare[]);
  for (const [k, lane] of listed.entries()) shared[k % overall]!.push(...lane);
  return shared;
}

function endpointShares(
  tenants: ReadonlyArray<{ readonly tenant: string; readonly count: number }>,
  own: readonly number[],
  lanes: number,
  perTenant: number,
): LaneShare[][] {
  const loads = Array.from({ length: lanes }, () => 0);
  const shares = Array.from({ length: lanes }, () => [] as LaneShare[]);
  const order = [...own].sort(
    (a, b) => tenants[b]!.count - tenants[a]!.count || tenants[a]!.tenant.localeCompare(tenants[b]!.tenant),
  );
  for (const t of order) {
    const count = tenants[t]!.count;
    const stride = Math.min(perTenant, count, lanes);
    const chosen = loads
      .map((load, lane) => ({ load, lane }))
      .sort((a, b) => a.load - b.load || a.lane - b.lane)
      .slice(0, stride)
      .map((c) => c.lane);
    for (const [offset, lane] of chosen.entries()) {
      shares[lane]!.push({ tenant: t, offset, stride });
      loads[lane]! += Math.ceil((count - offset) / stride);
    }
  }
  return shares;
}

/** A lane's units: its shares taken in turn, one unit each, until all are spent. */
export function laneUnits<U>(lane: readonly LaneShare[], unitsOf: (tenant: number) => readonly U[]): U[] {
  return interleave(lane.map((s) => takeShare(unitsOf(s.tenant), s)));
}

/** A share's units of its tenant's list, in plan order. */
export function takeShare<U>(all: readonly U[], share: LaneShare): U[] {
  const mine: U[] = [];
  for (let i = share.offset; i < all.length; i += share.stride) mine.push(all[i]!);
  return mine;
}

/** The lists taken in turn, one item each, until all are empty. */
export function interleave<U>(lists: readonly (readonly U[])[]): U[] {
  const out: U[] = [];
  const longest = Math.max(0, ...lists.map((l) => l.length));
  for (let i = 0; i < longest; i++) for (const l of lists) if (i < l.length) out.push(l[i]!);
  return out;
}

/** The lanes of one run, each its units in the order the lane runs them (planShares, laneUnits). */
export function planLanes<U>(tenants: readonly TenantUnits<U>[], caps: LaneCaps): U[][] {
  const shares = planShares(
    tenants.map((t) => ({ tenant: t.tenant, endpoint: t.endpoint, count: t.units.length })),
    caps,
  );
  return shares.map((lane) => laneUnits(lane, (t) => tenants[t]!.units));
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
