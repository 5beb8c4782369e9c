// Daily EventBridge Scheduler schedules for the exporters: one role allowed to invoke exactly
// these functions and start exactly these state machines, bounded retries, and a dead-letter
// queue for what could not be delivered.
import { Duration, Stack, TimeZone } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Schedule, ScheduleExpression, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke, StepFunctionsStartExecution } from 'aws-cdk-lib/aws-scheduler-targets';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';

/** What a schedule starts, with the schedules' input ({} unless given). */
export type ScheduledTarget = { readonly function: IFunction } | { readonly stateMachine: IStateMachine };

export interface ScheduledRun {
  readonly id: string;
  readonly description: string;
  readonly expression: string;
  readonly target: ScheduledTarget;
}

export interface ExportSchedulesProps {
  readonly runs: readonly ScheduledRun[];
  readonly timeZone: string;
  readonly deadLetterQueue: IQueue;
  /** The input of every target; {} by default, {"tenant": "<id>"} for a tenant's schedules. */
  readonly input?: Readonly<Record<string, unknown>>;
}

export const SCHEDULE_RETRY_ATTEMPTS = 4;
export const SCHEDULE_MAX_EVENT_AGE = Duration.hours(2);

export class ExportSchedules extends Construct {
  readonly schedules: Schedule[];

  constructor(scope: Construct, id: string, props: ExportSchedulesProps) {
    super(scope, id);
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description: 'EventBridge Scheduler: start the Cloudforet export functions and state machines',
    });
    const timeZone = TimeZone.of(props.timeZone);
    const targetProps = {
      role,
      input: ScheduleTargetInput.fromObject(props.input ?? {}),
      retryAttempts: SCHEDULE_RETRY_ATTEMPTS,
      maxEventAge: SCHEDULE_MAX_EVENT_AGE,
      deadLetterQueue: props.deadLetterQueue,
    };
    this.schedules = props.runs.map(
      (run) =>
        new Schedule(this, run.id, {
          description: run.description,
          schedule: ScheduleExpression.expression(run.expression, timeZone),
          target:
            'function' in run.target
              ? new LambdaInvoke(run.target.function, targetProps)
              : new StepFunctionsStartExecution(run.target.stateMachine, targetProps),
        }),
    );
  }
}
