// Alarms that say a night's export did not happen: function errors, failed or timed-out state
// machine executions, and messages in either dead-letter queue. They notify one SNS topic; an
// e-mail subscription when one is configured.
import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';

export interface ExportAlarmsProps {
  readonly functions: ReadonlyArray<{ readonly id: string; readonly function: IFunction }>;
  readonly stateMachines: ReadonlyArray<{ readonly id: string; readonly stateMachine: IStateMachine }>;
  readonly queues: ReadonlyArray<{ readonly id: string; readonly queue: IQueue }>;
  readonly email: string | undefined;
}

export class ExportAlarms extends Construct {
  readonly topic: Topic;

  constructor(scope: Construct, id: string, props: ExportAlarmsProps) {
    super(scope, id);
    this.topic = alarmTopic(this);
    if (props.email !== undefined) this.topic.addSubscription(new EmailSubscription(props.email));
    const action = new SnsAction(this.topic);
    const period = Duration.minutes(5);
    for (const { id: name, function: fn } of props.functions) {
      new Alarm(this, `${name}Errors`, {
        alarmDescription: `${name}: an invocation failed; see its log group and the failed-invocations queue`,
        metric: fn.metricErrors({ period, statistic: 'Sum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }).addAlarmAction(action);
    }
    for (const { id: name, stateMachine } of props.stateMachines) {
      const executions = [
        ['ExecutionsFailed', stateMachine.metricFailed({ period, statistic: 'Sum' }), 'failed'],
        ['ExecutionsTimedOut', stateMachine.metricTimedOut({ period, statistic: 'Sum' }), 'timed out'],
      ] as const;
      for (const [metricName, metric, what] of executions) {
        new Alarm(this, `${name}${metricName}`, {
          alarmDescription:
            `${name}: an execution ${what}; open it in the Step Functions console, ` +
            'where the failed state shows the error',
          metric,
          threshold: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }).addAlarmAction(action);
      }
    }
    for (const { id: name, queue } of props.queues) {
      new Alarm(this, `${name}NotEmpty`, {
        alarmDescription: `${name} holds messages: a scheduled export was not delivered or failed every attempt`,
        metric: queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }).addAlarmAction(action);
    }
  }
}

/** A TLS-only topic. Its policy replaces SNS's default one, which is what let CloudWatch publish. */
function alarmTopic(scope: Construct): Topic {
  const topic = new Topic(scope, 'Topic', { displayName: 'Cloudforet export alarms', enforceSSL: true });
  const stack = Stack.of(scope);
  topic.addToResourcePolicy(
    new PolicyStatement({
      sid: 'CloudWatchAlarmsPublish',
      principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: {
        StringEquals: { 'aws:SourceAccount': stack.account },
        ArnLike: {
          'aws:SourceArn': stack.formatArn({
            service: 'cloudwatch',
            resource: 'alarm',
            resourceName: '*',
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          }),
        },
      },
    }),
  );
  return topic;
}
