// CloudWatch embedded-metric-format lines through Powertools Metrics: one line per invocation with
// the run's figures, one per data source with its ages, one with the worst ages. Only names,
// numbers and ids go in: never the token, a header or a payload. For a tenant each figure is also
// published with the tenant among its dimensions (one more dimension set on the same line, or a
// second line for the worst ages): the alarms keep watching the metrics without it, which every
// tenant's runs feed, and the tenant's own say which tenant it was.
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import {
  DATA_SOURCE_DIMENSION,
  FRESHNESS_METRICS,
  FUNCTION_DIMENSION,
  METRICS_NAMESPACE,
  METRICS_SERVICE,
  RUN_METRICS,
  SOURCE_METRICS,
  TENANT_DIMENSION,
} from './metric-names.ts';

/** What one invocation did; a figure left out is not published. */
export type RunFigures = Partial<Record<keyof typeof RUN_METRICS, number>>;

export interface SourceAges {
  readonly dataSourceId: string;
  /** Hours since the end of the newest billed day exported; undefined: none exported yet. */
  readonly billedDayAgeHours: number | undefined;
  /** Hours since Cloudforet last synchronized the data source; undefined: never. */
  readonly syncAgeHours: number | undefined;
}

const UNITS: Record<keyof typeof RUN_METRICS, (typeof MetricUnit)[keyof typeof MetricUnit]> = {
  rows: MetricUnit.Count,
  bytes: MetricUnit.Bytes,
  exported: MetricUnit.Count,
  unchanged: MetricUnit.Count,
  failed: MetricUnit.Count,
  apiRetries: MetricUnit.Count,
};

// A new instance per line: Powertools keeps dimensions per instance, and none must leak between lines.
const metrics = () => new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE });

/**
 * A line whose dimension sets are `base`, and for a tenant `base` with the tenant. `base` is the
 * line's default dimensions, which every set carries: Powertools warns of a key named in two sets,
 * so the sets themselves name nothing (the base alone) and the tenant alone.
 */
function lineWith(base: Record<string, string>, tenant: string | undefined): Metrics {
  const m = metrics();
  m.setDefaultDimensions(base);
  return tenant === undefined ? m : m.addDimensions({}).addDimensions({ [TENANT_DIMENSION]: tenant });
}

export function publishRunMetrics(functionName: string, figures: RunFigures, tenant?: string): void {
  const m = lineWith({ [FUNCTION_DIMENSION]: functionName }, tenant);
  for (const [name, value] of Object.entries(figures) as [keyof typeof RUN_METRICS, number][]) {
    if (Number.isFinite(value)) m.addMetric(RUN_METRICS[name], UNITS[name], value);
  }
  m.publishStoredMetrics();
}

/** One line per data source, then the worst of each age (what the alarms watch). */
export function publishFreshness(ages: readonly SourceAges[], tenant?: string): void {
  for (const a of ages) {
    const m = lineWith({ [DATA_SOURCE_DIMENSION]: a.dataSourceId }, tenant);
    if (a.billedDayAgeHours !== undefined)
      m.addMetric(SOURCE_METRICS.billedDayAge, MetricUnit.NoUnit, a.billedDayAgeHours);
    if (a.syncAgeHours !== undefined) m.addMetric(SOURCE_METRICS.syncAge, MetricUnit.NoUnit, a.syncAgeHours);
    if (a.billedDayAgeHours !== undefined || a.syncAgeHours !== undefined) m.publishStoredMetrics();
  }
  const worst = (pick: (a: SourceAges) => number | undefined) =>
    Math.max(0, ...ages.map(pick).filter((v): v is number => v !== undefined));
  for (const dimension of tenant === undefined ? [undefined] : [undefined, tenant]) {
    const m = metrics();
    if (dimension !== undefined) m.addDimension(TENANT_DIMENSION, dimension);
    m.addMetric(
      FRESHNESS_METRICS.billedDayAge,
      MetricUnit.NoUnit,
      worst((a) => a.billedDayAgeHours),
    )
      .addMetric(
        FRESHNESS_METRICS.syncAge,
        MetricUnit.NoUnit,
        worst((a) => a.syncAgeHours),
      )
      .publishStoredMetrics();
  }
}
