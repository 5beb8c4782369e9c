// Freshness alarms and the dashboard. CloudWatch alarms are static while data sources come and
// go, so the alarms watch the worst data source's age (one series, published hourly by the
// freshness check) and treat silence as stale; the check's log line, a saved Logs Insights query,
// the dashboard (a SEARCH per data source) and the saved Athena query name which one it is.
import { Duration } from 'aws-cdk-lib';
import type { HorizontalAnnotation, IAlarmAction } from 'aws-cdk-lib/aws-cloudwatch';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { QueryDefinition, QueryString } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import {
  DATA_SOURCE_DIMENSION,
  FRESHNESS_METRICS,
  FUNCTION_DIMENSION,
  METRICS_NAMESPACE,
  METRICS_SERVICE,
  RUN_METRICS,
  SOURCE_METRICS,
} from '../functions/lib/lambda/metric-names.ts';

export interface ExportMonitoringProps {
  readonly freshnessHours: number;
  readonly alarmAction: IAlarmAction;
  /** The freshness check's log group, where 'data source stale' lines name the data sources. */
  readonly freshnessLogGroup: ILogGroup;
  readonly dashboardName?: string;
}

/** Hours without a datapoint (or over the threshold) before a freshness alarm: one late check is no alarm. */
export const FRESHNESS_EVALUATION_HOURS = 3;
export const STALE_QUERY_NAME = 'cloudforet-export/stale-data-sources';

export class ExportMonitoring extends Construct {
  readonly alarms: { readonly billedDays: Alarm; readonly sync: Alarm };
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ExportMonitoringProps) {
    super(scope, id);
    new QueryDefinition(this, 'StaleDataSources', {
      queryDefinitionName: STALE_QUERY_NAME,
      logGroups: [props.freshnessLogGroup],
      queryString: new QueryString({
        fields: ['@timestamp', 'dataSourceId', 'name', 'why'],
        filterStatements: ["message = 'data source stale'"],
        sort: '@timestamp desc',
      }),
    });
    const where =
      `The freshness check names it: Logs Insights query '${STALE_QUERY_NAME}' ` +
      "(its 'data source stale' lines), the dashboard, or the Athena saved query freshness_by_data_source. " +
      'No datapoint at all means the check itself stopped: see its Errors alarm and log group.';
    const alarm = (name: string, metricName: string, what: string) =>
      freshnessAlarm(
        this,
        name,
        props,
        metricName,
        `${what} for more than ${props.freshnessHours} h. ${where}`,
      );
    this.alarms = {
      billedDays: alarm(
        'StaleBilledDays',
        FRESHNESS_METRICS.billedDayAge,
        'A data source has had no new billed day exported',
      ),
      sync: alarm(
        'StaleCloudforetSync',
        FRESHNESS_METRICS.syncAge,
        'Cloudforet has not synchronized a data source',
      ),
    };
    this.dashboard = exportDashboard(this, props, Object.values(this.alarms));
  }
}

function freshnessAlarm(
  scope: Construct,
  id: string,
  props: ExportMonitoringProps,
  metricName: string,
  description: string,
): Alarm {
  const alarm = new Alarm(scope, id, {
    alarmDescription: description,
    metric: worstAge(metricName),
    threshold: props.freshnessHours,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: FRESHNESS_EVALUATION_HOURS,
    datapointsToAlarm: FRESHNESS_EVALUATION_HOURS,
    // Silence is not health: a stopped check, schedule or secret publishes nothing.
    treatMissingData: TreatMissingData.BREACHING,
  });
  alarm.addAlarmAction(props.alarmAction);
  return alarm;
}

function worstAge(metricName: string): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: METRICS_SERVICE },
    statistic: 'Maximum',
    period: Duration.hours(1),
  });
}

/** One line per value of `dimension`, found by SEARCH: data sources and functions come and go. */
function search(metricName: string, dimension: string, statistic: string, period: Duration, label: string) {
  const schema = `{${METRICS_NAMESPACE},service,${dimension}}`;
  return new MathExpression({
    expression: `SEARCH('${schema} MetricName="${metricName}"', '${statistic}', ${period.toSeconds()})`,
    label,
    period,
  });
}

function exportDashboard(scope: Construct, props: ExportMonitoringProps, alarms: Alarm[]): Dashboard {
  const day = Duration.days(1);
  const perFunction = (title: string, names: string[]) =>
    new GraphWidget({
      title,
      width: 12,
      left: names.map((n) => search(n, FUNCTION_DIMENSION, 'Sum', day, n)),
    });
  const dashboard = new Dashboard(scope, 'Dashboard', {
    dashboardName: props.dashboardName,
    defaultInterval: Duration.days(14),
  });
  dashboard.addWidgets(
    new TextWidget({
      markdown:
        '# Cloudforet export\nFreshness per data source (hours), what each run exported, and the ' +
        'freshness alarms. docs/operations.md: Monitoring; README: Troubleshooting.',
      width: 24,
      height: 2,
    }),
  );
  dashboard.addWidgets(new AlarmStatusWidget({ title: 'Freshness alarms', alarms, width: 24, height: 3 }));
  dashboard.addWidgets(...ageWidgets(props.freshnessHours));
  dashboard.addWidgets(
    perFunction('Rows exported per day', [RUN_METRICS.rows]),
    perFunction('Bytes exported per day', [RUN_METRICS.bytes]),
  );
  dashboard.addWidgets(
    perFunction('Units per day', [RUN_METRICS.exported, RUN_METRICS.unchanged, RUN_METRICS.failed]),
    perFunction('Cloudforet API retries per day', [RUN_METRICS.apiRetries]),
  );
  return dashboard;
}

/** One line per data source, with the alarm threshold drawn across. */
function ageWidgets(freshnessHours: number): GraphWidget[] {
  const hour = Duration.hours(1);
  const threshold: HorizontalAnnotation = { value: freshnessHours, label: 'freshnessHours' };
  return [
    new GraphWidget({
      title: 'Newest exported billed day, age in hours, per data source',
      width: 12,
      left: [search(SOURCE_METRICS.billedDayAge, DATA_SOURCE_DIMENSION, 'Maximum', hour, 'billed day age')],
      leftAnnotations: [threshold],
    }),
    new GraphWidget({
      title: "Cloudforet's last sync, age in hours, per data source",
      width: 12,
      left: [search(SOURCE_METRICS.syncAge, DATA_SOURCE_DIMENSION, 'Maximum', hour, 'sync age')],
      leftAnnotations: [threshold],
    }),
  ];
}
