// The stack's monitoring: the freshness alarms (metric, threshold from settings, silence is
// stale), the dashboard, the saved Logs Insights query, the freshness check's access, and the Glue
// tables over the run ledger.
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ledgerTables } from '../../../functions/lib/tables/ledger.ts';
import { idOf, type Json, statementsOfRole, synth } from '../../support/synth-stack.ts';

describe('monitoring', () => {
  let t: Template;
  beforeAll(() => {
    t = synth({ bucketName: 'my-exports', freshnessHours: 20, projectionStart: '2024-06-01' });
  });

  it.each([
    ['StalestBilledDayAgeHours', 'no new billed day exported'],
    ['StalestSyncAgeHours', 'Cloudforet has not synchronized'],
  ])('alarms when %s, the worst data source, passes freshnessHours or stops arriving', (metric, words) => {
    const alarms = Object.values(t.findResources('AWS::CloudWatch::Alarm')).filter(
      (a) => a.Properties.MetricName === metric,
    );

    expect(alarms).toHaveLength(1);
    const alarm = alarms[0]!.Properties as Json;
    expect(alarm).toMatchObject({
      Namespace: 'CloudforetExport',
      Dimensions: [{ Name: 'service', Value: 'cloudforet-export' }],
      Statistic: 'Maximum',
      Period: 3600,
      Threshold: 20,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      TreatMissingData: 'breaching',
      AlarmActions: [{ Ref: idOf(t, 'AWS::SNS::Topic', 'AlarmsTopic') }],
    });
    expect(String(alarm.AlarmDescription)).toContain(words);
    expect(String(alarm.AlarmDescription)).toContain('more than 20 h');
    expect(String(alarm.AlarmDescription)).toContain('cloudforet-export/stale-data-sources');
  });

  it('draws a dashboard of ages per data source, run figures per function and the freshness alarms', () => {
    const [dashboard] = Object.values(t.findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboard!.Properties.DashboardBody);

    for (const name of ['NewestBilledDayAgeHours', 'LastSyncAgeHours', 'RowsExported', 'BytesExported']) {
      expect(body).toContain(`MetricName=\\\\\\"${name}\\\\\\"`);
    }
    expect(body).toContain('{CloudforetExport,service,data_source_id}');
    expect(body).toContain('{CloudforetExport,service,function}');
    for (const id of Object.keys(t.findResources('AWS::CloudWatch::Alarm')).filter((k) =>
      k.includes('Stale'),
    )) {
      expect(body).toContain(id);
    }
  });

  it('saves a Logs Insights query over the freshness check log for the stale data sources', () => {
    t.hasResourceProperties('AWS::Logs::QueryDefinition', {
      Name: 'cloudforet-export/stale-data-sources',
      LogGroupNames: [{ Ref: idOf(t, 'AWS::Logs::LogGroup', 'FreshnessCheckLogs') }],
    });
  });

  it('lets the freshness check read the secret and the prefix, and write nothing to S3', () => {
    const statements = statementsOfRole(t, idOf(t, 'AWS::IAM::Role', 'FreshnessCheckRole'));
    const actions = statements.flatMap((s) => [s.Action].flat());

    expect(actions).toContain('secretsmanager:GetSecretValue');
    expect(actions).toContain('s3:GetObject');
    expect(actions).toContain('s3:ListBucket');
    expect(actions.filter((a) => /^s3:(Put|Delete)/.test(String(a)))).toEqual([]);
  });

  it.each(ledgerTables.map((table) => [table.name, table] as const))(
    '%s is an external JSON table under ledger/, by day (the rollup: by table) with projection, columns from its list',
    (name, table) => {
      const [resource] = Object.values(t.findResources('AWS::Glue::Table')).filter(
        (r) => r.Properties.TableInput.Name === name,
      );
      const input = resource!.Properties.TableInput;
      const location = `s3://my-exports/cloudforet/ledger/${name}/`;
      const key = table.partitionKey;

      expect(input.Parameters).toMatchObject({
        classification: 'json',
        'projection.enabled': 'true',
        ...(table.values
          ? { [`projection.${key}.type`]: 'enum', [`projection.${key}.values`]: table.values.join(',') }
          : { [`projection.${key}.type`]: 'date', [`projection.${key}.range`]: '2024-06-01,NOW' }),
        'storage.location.template': `${location}${key}=\${${key}}/`,
      });
      expect(input.PartitionKeys).toEqual([{ Name: key, Type: 'string', Comment: expect.any(String) }]);
      expect(input.StorageDescriptor).toMatchObject({
        Location: location,
        InputFormat: 'org.apache.hadoop.mapred.TextInputFormat',
        SerdeInfo: { SerializationLibrary: 'org.openx.data.jsonserde.JsonSerDe' },
      });
      expect(input.StorageDescriptor.Columns.map((c: Json) => [c.Name, c.Type])).toEqual(
        table.columns.map((c) => [c.name, c.type]),
      );
    },
  );

  it('keeps the ledger outside every data table folder', () => {
    const locations = Object.values(t.findResources('AWS::Glue::Table')).map(
      (r) => r.Properties.TableInput.StorageDescriptor.Location as string,
    );
    const ledger = locations.filter((l) => l.includes('/ledger/'));

    expect(ledger).toHaveLength(ledgerTables.length);
    for (const l of ledger) {
      expect(locations.filter((other) => other !== l && l.startsWith(other))).toEqual([]);
    }
  });
});
