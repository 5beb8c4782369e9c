// The Cloudforet-bound model: in production a run waits on Cloudforet's answers, not on our CPU.
// A cost day pages by keyset (each page's request needs the last id of the page before) in
// COST_ID_SPLIT's ranges at once, so each unit has one page in flight per range while it encodes
// the one before; units run side by side.
import { PAGE_LIMIT } from '../../functions/lib/cloudforet/pager.ts';
import { COST_ID_SPLIT } from '../../functions/lib/costs/days/export-day.ts';
import { settingDefaults } from '../../infra/settings.ts';

/** Keyset paging in ranges of cost_id: one page in flight per range (functions/lib/cloudforet/pager.ts). */
export const PAGES_IN_FLIGHT_PER_UNIT = COST_ID_SPLIT.length + 1;

/** Rows a second that pages in flight allow: pages in flight × rows a page / latency. */
export function pagesInFlightBound(pagesInFlight: number, latencyMs: number): number {
  return (pagesInFlight * PAGE_LIMIT) / (latencyMs / 1000);
}

/** The same for cost units paging at once. */
export const costUnitsBound = (units: number, latencyMs: number) =>
  pagesInFlightBound(units * PAGES_IN_FLIGHT_PER_UNIT, latencyMs);

/** What a stage counted of its cost pages (StageResult's fields). */
export interface CountedPages {
  readonly rows: number;
  readonly wallMs: number;
  readonly pages?: number;
  readonly pageRoundTripsMs?: number;
  /** The main thread's active time (StageResult.mainThreadMs); absent in records before it. */
  readonly mainThreadMs?: number;
}

/**
 * What held the pages back, as the share's three factors: how much of the time each page place
 * had a request out, the latency over a page's measured round trip (asked to last byte come),
 * and how full the pages were. Their product is the share of the bound.
 *
 * Beside them, what drives the first two: the main thread, which reads every answer and also
 * parses and encodes every page. `mainThreadBusy` is its active share of the wall; at the bound
 * (places / latency pages a second) it would need `mainThreadAtBound` of itself, its measured
 * time a page times those pages: near 1 or above, one thread cannot keep the places busy however
 * the pages are scheduled, and only less main-thread time a page (or another thread) raises the
 * share.
 */
export function pagesHeldBack(r: CountedPages, units: number, latencyMs: number) {
  const pages = pageFigures(r);
  if (!pages) return undefined;
  const places = units * PAGES_IN_FLIGHT_PER_UNIT;
  const mainThreadMsPerPage = r.mainThreadMs === undefined ? undefined : r.mainThreadMs / pages.pages;
  /** The bound's pages a second: places / latency. */
  const boundPagesPerSec = (places * 1000) / latencyMs;
  return {
    inFlight: pages.outOnAverage / places,
    roundTripMs: pages.roundTripMs,
    latencyOverRoundTrip: latencyMs / pages.roundTripMs,
    rowsPerPage: r.rows / pages.pages,
    ...(mainThreadMsPerPage !== undefined && {
      mainThreadBusy: r.mainThreadMs! / r.wallMs,
      mainThreadMsPerPage,
      boundPagesPerSec,
      mainThreadAtBound: (mainThreadMsPerPage * boundPagesPerSec) / 1000,
    }),
  };
}

/** A stage's cost pages: their mean round trip and how many were out on average; none counted, undefined. */
export function pageFigures(r: CountedPages) {
  if (!r.pages || r.pageRoundTripsMs === undefined) return undefined;
  return {
    pages: r.pages,
    roundTripMs: r.pageRoundTripsMs / r.pages,
    outOnAverage: r.pageRoundTripsMs / r.wallMs,
  };
}

/** Lambda gives a full vCPU at 1,769 MB and CPU in proportion below it. */
const FULL_VCPU_MB = 1769;

export interface BackfillCase {
  readonly months: number;
  readonly dataSources: number;
  readonly rowsPerDay: number;
  readonly latencyMs: number;
}

/** The first backfill: 12 months × 20 data sources × 50,000 rows a day, 300 ms a page. */
export const FIRST_BACKFILL: BackfillCase = {
  months: 12,
  dataSources: 20,
  rowsPerDay: 50_000,
  latencyMs: 300,
};

export interface BackfillEstimate {
  readonly rows: number;
  readonly units: number;
  /** Seconds one unit (a data source-day) takes: the longer of its pages' wait and its CPU. */
  readonly unitSeconds: number;
  readonly wallHours: number;
  readonly gbSeconds: number;
  readonly bound: 'Cloudforet' | 'CPU';
}

/**
 * The state machine runs one unit per invocation, backfillMaxConcurrency at once, each on a
 * function of memoryMb (the stack's defaults). A unit waits pages × latency for its pages, or
 * rows × CPU per row / its share of a vCPU, whichever is longer (the two overlap).
 */
export function estimateBackfill(cpuUsPerRow: number, c: BackfillCase = FIRST_BACKFILL): BackfillEstimate {
  const days = Math.round(c.months * 30.4);
  const units = days * c.dataSources;
  const pages = Math.ceil(c.rowsPerDay / PAGE_LIMIT);
  const memoryMb = settingDefaults.memoryMb;
  const vcpu = Math.min(1, memoryMb / FULL_VCPU_MB);
  const waitSeconds = (pages * c.latencyMs) / (PAGES_IN_FLIGHT_PER_UNIT * 1000);
  const cpuSeconds = (c.rowsPerDay * cpuUsPerRow) / 1e6 / vcpu;
  const unitSeconds = Math.max(waitSeconds, cpuSeconds);
  return {
    rows: units * c.rowsPerDay,
    units,
    unitSeconds,
    wallHours: (units * unitSeconds) / settingDefaults.backfillMaxConcurrency / 3600,
    gbSeconds: units * unitSeconds * (memoryMb / 1024),
    bound: waitSeconds >= cpuSeconds ? 'Cloudforet' : 'CPU',
  };
}

export function describeBackfill(cpuUsPerRow: number): string {
  const e = estimateBackfill(cpuUsPerRow);
  const c = FIRST_BACKFILL;
  return [
    `first backfill model: ${c.months} months × ${c.dataSources} data sources × ${c.rowsPerDay.toLocaleString('en-US')} rows a day ` +
      `at ${c.latencyMs} ms a page = ${(e.rows / 1e6).toFixed(0)} M rows in ${e.units.toLocaleString('en-US')} units;`,
    `defaults: ${settingDefaults.backfillMaxConcurrency} units at once, ${settingDefaults.memoryMb} MB, ` +
      `${PAGES_IN_FLIGHT_PER_UNIT} pages in flight per unit (one per cost_id range), ${cpuUsPerRow.toFixed(1)} CPU µs a row (measured):`,
    `  ${e.unitSeconds.toFixed(1)} s a unit (${e.bound}-bound), ~${e.wallHours.toFixed(1)} h wall, ` +
      `~${Math.round(e.gbSeconds).toLocaleString('en-US')} Lambda GB-seconds`,
  ].join('\n');
}
