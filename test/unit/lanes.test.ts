// The daily run across tenants deals every tenant's units into lanes (functions/lib/costs/job/
// lanes.ts). Whatever the tenants, endpoints and caps: every unit lies in exactly one lane; a
// tenant's units in at most perTenant lanes, an endpoint's in at most perEndpoint, at most overall
// lanes in all; and a run of the lanes, however long each unit takes, never has more units in
// flight for a tenant, an endpoint or the run than its cap. A lane's invocation goes on past a
// unit that failed for good and returns at a transient failure, to be called again there.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  LANE_RESERVE_MS,
  LANE_UNIT_RETRIES,
  type LaneCaps,
  planLanes,
  runLane,
  type TenantUnits,
} from '../../functions/lib/costs/job/lanes.ts';
import { UnitFailedError, UnitRetryableError } from '../../functions/lib/errors.ts';

interface U {
  readonly tenant: string;
  readonly endpoint: string;
  readonly n: number;
  /** Time units it takes to run. */
  readonly cost: number;
}

const world = fc
  .record({
    tenants: fc.array(
      fc.record({
        endpoint: fc.integer({ min: 0, max: 3 }),
        units: fc.array(fc.integer({ min: 1, max: 9 }), { maxLength: 40 }),
      }),
      {
        minLength: 1,
        maxLength: 12,
      },
    ),
    caps: fc.record({
      overall: fc.integer({ min: 1, max: 16 }),
      perEndpoint: fc.integer({ min: 1, max: 8 }),
      perTenant: fc.integer({ min: 1, max: 4 }),
    }),
  })
  .map(({ tenants, caps }) => ({
    caps,
    tenants: tenants.map(
      (t, i): TenantUnits<U> => ({
        tenant: `t${i}`,
        endpoint: `e${t.endpoint}`,
        units: t.units.map((cost, n) => ({ tenant: `t${i}`, endpoint: `e${t.endpoint}`, n, cost })),
      }),
    ),
  }));

/** The lanes run at once (a Distributed Map with no cap of its own), each unit for its cost: the most in flight at any time. */
function mostInFlight(lanes: readonly (readonly U[])[], key: (u: U) => string): number {
  const events: { at: number; key: string; delta: number }[] = [];
  for (const lane of lanes) {
    let at = 0;
    for (const u of lane) {
      events.push({ at, key: key(u), delta: 1 }, { at: at + u.cost, key: key(u), delta: -1 });
      at += u.cost;
    }
  }
  events.sort((a, b) => a.at - b.at || a.delta - b.delta);
  const now = new Map<string, number>();
  let most = 0;
  for (const e of events) {
    const n = (now.get(e.key) ?? 0) + e.delta;
    now.set(e.key, n);
    most = Math.max(most, n);
  }
  return most;
}

describe('planLanes', () => {
  it('puts every unit in one lane and holds every cap, in flight too', () => {
    fc.assert(
      fc.property(world, ({ tenants, caps }) => {
        const lanes = planLanes(tenants, caps);
        const all = lanes.flat();
        expect(all).toHaveLength(tenants.reduce((n, t) => n + t.units.length, 0));
        expect(new Set(all).size).toBe(all.length);
        expect(lanes.every((l) => l.length > 0)).toBe(true);
        expect(lanes.length).toBeLessThanOrEqual(caps.overall);
        const lanesOf = (key: (u: U) => string) => {
          const count = new Map<string, number>();
          for (const lane of lanes)
            for (const k of new Set(lane.map(key))) count.set(k, (count.get(k) ?? 0) + 1);
          return Math.max(0, ...count.values());
        };
        expect(lanesOf((u) => u.tenant)).toBeLessThanOrEqual(caps.perTenant);
        expect(lanesOf((u) => u.endpoint)).toBeLessThanOrEqual(caps.perEndpoint);
        expect(mostInFlight(lanes, () => 'run')).toBeLessThanOrEqual(caps.overall);
        expect(mostInFlight(lanes, (u) => u.tenant)).toBeLessThanOrEqual(caps.perTenant);
        expect(mostInFlight(lanes, (u) => u.endpoint)).toBeLessThanOrEqual(caps.perEndpoint);
        // A tenant's units keep their plan order within each lane.
        for (const lane of lanes)
          for (const t of tenants) {
            const ns = lane.filter((u) => u.tenant === t.tenant).map((u) => u.n);
            expect(ns).toEqual([...ns].sort((a, b) => a - b));
          }
      }),
      { numRuns: 300 },
    );
  });

  it('uses every lane it may, so no tenant waits for a lane to free', () => {
    fc.assert(
      fc.property(world, ({ tenants, caps }) => {
        const lanes = planLanes(tenants, caps);
        const endpoints = new Set(tenants.filter((t) => t.units.length > 0).map((t) => t.endpoint));
        const demand = [...endpoints].reduce(
          (n, e) =>
            n +
            Math.min(
              caps.perEndpoint,
              tenants
                .filter((t) => t.endpoint === e)
                .reduce((m, t) => m + Math.min(caps.perTenant, t.units.length), 0),
            ),
          0,
        );
        expect(lanes.length).toBe(Math.min(caps.overall, demand));
        expect(lanes.flat().length).toBe(tenants.reduce((n, t) => n + t.units.length, 0));
      }),
      { numRuns: 200 },
    );
  });

  it('interleaves the tenants of a lane: the first units of a lane are one of each', () => {
    const caps: LaneCaps = { overall: 2, perEndpoint: 1, perTenant: 1 };
    const tenant = (id: string, n: number): TenantUnits<string> => ({
      tenant: id,
      endpoint: 'one',
      units: Array.from({ length: n }, (_, i) => `${id}${i}`),
    });
    expect(planLanes([tenant('a', 3), tenant('b', 1), tenant('c', 2)], caps)).toEqual([
      ['a0', 'c0', 'b0', 'a1', 'c1', 'a2'],
    ]);
    // Two endpoints: a lane each, listed in turn, though one endpoint's tenant is far larger.
    expect(planLanes([tenant('a', 4), { ...tenant('z', 1), endpoint: 'two' }], caps)).toEqual([
      ['a0', 'a1', 'a2', 'a3'],
      ['z0'],
    ]);
  });
});

describe('runLane', () => {
  const step = { runId: 'r', bucket: 'b', laneKey: 'k', units: 4 };

  it('goes on past a unit that failed for good and returns at a transient failure, then resumes there', async () => {
    const ran: string[] = [];
    const failures: Record<string, Error[]> = {
      b: [new UnitFailedError('UNIT_AUTH', 'denied')],
      c: [new UnitRetryableError('UNIT_5XX', 'busy'), new UnitRetryableError('UNIT_5XX', 'busy')],
    };
    const deps = {
      units: ['a', 'b', 'c', 'd'],
      runUnit: async (u: string) => {
        ran.push(u);
        const next = failures[u]?.shift();
        if (next) throw next;
      },
      remainingMs: () => Number.POSITIVE_INFINITY,
    };
    const first = await runLane(step, deps);
    expect(first).toMatchObject({ from: 2, attempt: 1, wait: 30, done: false });
    const second = await runLane(first, deps);
    expect(second).toMatchObject({ from: 2, attempt: 2, wait: 60, done: false });
    const third = await runLane(second, deps);
    expect(third).toMatchObject({ from: 4, done: true });
    expect(ran).toEqual(['a', 'b', 'c', 'c', 'c', 'd']);
  });

  it('leaves a unit whose retries are spent with its failure and goes on', async () => {
    const ran: string[] = [];
    const deps = {
      units: ['a', 'b'],
      runUnit: async (u: string) => {
        ran.push(u);
        if (u === 'a') throw new UnitRetryableError('UNIT_5XX', 'busy');
      },
      remainingMs: () => Number.POSITIVE_INFINITY,
    };
    let progress = await runLane(step, deps);
    for (let i = 0; i < LANE_UNIT_RETRIES && !progress.done; i++) progress = await runLane(progress, deps);
    expect(progress).toMatchObject({ done: true, from: 2 });
    expect(ran).toEqual([...Array(LANE_UNIT_RETRIES + 1).fill('a'), 'b']);
  });

  it('starts no unit with too little time left and says where the next invocation starts', async () => {
    let left = LANE_RESERVE_MS + 1;
    const ran: string[] = [];
    const deps = {
      units: ['a', 'b', 'c'],
      runUnit: async (u: string) => {
        ran.push(u);
        left -= 2;
      },
      remainingMs: () => left,
    };
    // The first unit of an invocation always starts: a lane never stands still.
    expect(await runLane(step, deps)).toMatchObject({ from: 1, attempt: 0, wait: 0, done: false });
    left = 10 * LANE_RESERVE_MS;
    expect(await runLane({ ...step, from: 1 }, deps)).toMatchObject({ from: 3, done: true });
    expect(ran).toEqual(['a', 'b', 'c']);
  });
});
