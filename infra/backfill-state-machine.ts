// The cost backfill on Step Functions: Plan writes the units to S3, a Distributed Map exports each
// in its own invocation (at most backfillMaxConcurrency at once, to spare the Cloudforet API), and
// Summary fails the execution when any unit did not export.
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import {
  Choice,
  Condition,
  DefinitionBody,
  DistributedMap,
  JitterType,
  JsonPath,
  LogLevel,
  ResultWriterV2,
  S3JsonItemReader,
  StateMachine,
  TaskInput,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { STEPFUNCTIONS_USE_DISTRIBUTED_MAP_RESULT_WRITER_V2 } from 'aws-cdk-lib/cx-api';
import { Construct } from 'constructs';
import { JOB_MARKS_PREFIX, RUNS_DIR } from '../functions/lib/storage/layout.ts';
import {
  bucketKeyStatements,
  type ExportAccess,
  ExportFunction,
  type ExportFunctionProps,
} from './export-function.ts';

const RUN_TIMEOUT = Duration.hours(24);
const THROTTLE_INTERVAL_SECONDS = 10;
const THROTTLE_MAX_DELAY_SECONDS = 300;

export type BackfillStateMachineProps = Omit<
  ExportFunctionProps,
  'entry' | 'description' | 'reservedConcurrency' | 'access'
>;

export class BackfillStateMachine extends Construct {
  readonly stateMachine: StateMachine;
  readonly functions: {
    readonly plan: ExportFunction;
    readonly unit: ExportFunction;
    readonly summary: ExportFunction;
    readonly focus: ExportFunction;
  };

  constructor(scope: Construct, id: string, props: BackfillStateMachineProps) {
    super(scope, id);
    // Without this flag the map silently ignores resultWriterV2.
    this.node.setContext(STEPFUNCTIONS_USE_DISTRIBUTED_MAP_RESULT_WRITER_V2, true);
    const { settings, bucket } = props;
    const fn = (
      name: string,
      entry: string,
      description: string,
      reservedConcurrency?: number,
      access?: ExportAccess,
    ) => new ExportFunction(this, name, { ...props, entry, description, reservedConcurrency, access });
    this.functions = {
      plan: fn(
        'Plan',
        'functions/backfill-plan.ts',
        'Backfill step 1: plan the cost units, write them to S3',
      ),
      // Reserving exactly the map's concurrency caps the API load even when two executions overlap.
      unit: fn(
        'Unit',
        'functions/backfill-unit.ts',
        'Backfill step 2 (Distributed Map item): export one data source and day',
        settings.reservedConcurrency === undefined ? undefined : settings.backfillMaxConcurrency,
      ),
      focus: fn(
        'Focus',
        'functions/focus-export.ts',
        'Backfill step 3: derive the focus table (FOCUS 1.3) from the exported cost days',
      ),
      summary: fn(
        'Summary',
        'functions/backfill-summary.ts',
        'Backfill step 4: summarise; fail if a unit did not',
        undefined,
        // It reads the units' manifests and writes job marks only; it has no use for the secret.
        'read',
      ),
    };
    // The job-history marks of data sources whose units all exported (functions/lib/costs/planning/job-marks.ts).
    const marks = bucket.arnForObjects(`${settings.prefix}/${JOB_MARKS_PREFIX}*`);
    this.functions.summary.role.addToPrincipalPolicy(
      new PolicyStatement({ sid: 'WriteJobMarks', actions: ['s3:PutObject'], resources: [marks] }),
    );
    const region = Stack.of(this).region;
    for (const statement of bucketKeyStatements(
      settings.bucketKmsKeyArn,
      true,
      region,
      'WriteJobMarksWithKey',
    )) {
      this.functions.summary.role.addToPrincipalPolicy(statement);
    }
    const runs = `${settings.prefix}/${RUNS_DIR}`;
    const mapResults = `${runs}/costs/map-results`;
    const logs = new LogGroup(this, 'Logs', {
      retention: RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.stateMachine = new StateMachine(this, 'StateMachine', {
      comment: 'Cloudforet cost backfill: {} for the default window, or {"from","to"} (up to 400 days)',
      definitionBody: DefinitionBody.fromChainable(this.definition(props, mapResults)),
      timeout: RUN_TIMEOUT,
      logs: { destination: logs, level: LogLevel.ERROR, includeExecutionData: false },
    });
    this.stateMachine.addToRolePolicy(
      new PolicyStatement({
        sid: 'ReadBackfillUnits',
        actions: ['s3:GetObject'],
        resources: [bucket.arnForObjects(`${runs}/*`)],
      }),
    );
    this.stateMachine.addToRolePolicy(
      new PolicyStatement({
        sid: 'WriteMapResults',
        actions: ['s3:PutObject', 's3:GetObject', 's3:ListMultipartUploadParts', 's3:AbortMultipartUpload'],
        resources: [bucket.arnForObjects(`${mapResults}/*`)],
      }),
    );
    for (const statement of bucketKeyStatements(settings.bucketKmsKeyArn, true, Stack.of(this).region)) {
      this.stateMachine.addToRolePolicy(statement);
    }
  }

  /** The AWS CLI command that starts an execution with `input`. */
  startExecutionCommand(input: object): string {
    return (
      `aws stepfunctions start-execution --region ${Stack.of(this).region} ` +
      `--state-machine-arn ${this.stateMachine.stateMachineArn} --input '${JSON.stringify(input)}'`
    );
  }

  private definition(props: BackfillStateMachineProps, mapResultsPrefix: string) {
    const { plan, unit, focus, summary } = this.functions;
    // States have their own scope: their ids are the state names, and Plan/Summary are taken.
    const scope = new Construct(this, 'Definition');
    const planTask = new LambdaInvoke(scope, 'Plan', {
      lambdaFunction: plan.function,
      outputPath: '$.Payload',
    });
    const unitTask = new LambdaInvoke(scope, 'ExportUnit', {
      lambdaFunction: unit.function,
      outputPath: '$.Payload',
    })
      .addRetry({
        // UnitFailedError (auth, bad request) is not listed: a retry cannot fix it.
        errors: ['UnitRetryableError'],
        interval: Duration.seconds(30),
        backoffRate: 2,
        maxAttempts: 3,
        jitterStrategy: JitterType.FULL,
      })
      .addRetry({
        // Throttled: another execution holds the unit function's reserved concurrency. Waiting
        // is all that helps, and that execution may run as long as the state machine's timeout.
        errors: ['Lambda.TooManyRequestsException'],
        interval: Duration.seconds(THROTTLE_INTERVAL_SECONDS),
        backoffRate: 2,
        maxDelay: Duration.seconds(THROTTLE_MAX_DELAY_SECONDS),
        // Five of the waits ramp up from 10 s to the 300 s cap: the rest cover the whole timeout.
        maxAttempts: Math.ceil(RUN_TIMEOUT.toSeconds() / THROTTLE_MAX_DELAY_SECONDS) + 5,
      });
    const exportUnits = new DistributedMap(scope, 'ExportUnits', {
      itemReader: new S3JsonItemReader({
        bucketNamePath: JsonPath.stringAt('$.bucket'),
        key: JsonPath.stringAt('$.unitsObjectKey'),
      }),
      maxConcurrency: props.settings.backfillMaxConcurrency,
      // Failed units are the summary's to report, so the map itself never fails on them.
      toleratedFailurePercentage: 100,
      resultWriterV2: new PrefixResultWriter(props.bucket, mapResultsPrefix),
      resultPath: JsonPath.DISCARD,
    });
    exportUnits.itemProcessor(unitTask);
    const summaryTask = new LambdaInvoke(scope, 'Summary', {
      lambdaFunction: summary.function,
      payload: TaskInput.fromObject({ plan: JsonPath.entirePayload }),
      outputPath: '$.Payload',
    });
    // The FOCUS rows of the window's cost days (and of any day that has none). Its failures, or its
    // own error, go to the Summary, which fails the execution on them after writing the job marks.
    const focusTask = new LambdaInvoke(scope, 'Focus', {
      lambdaFunction: focus.function,
      payload: TaskInput.fromObject({ from: JsonPath.stringAt('$.from'), to: JsonPath.stringAt('$.to') }),
      resultSelector: {
        'written.$': '$.Payload.written',
        'removed.$': '$.Payload.removed',
        'failures.$': '$.Payload.failures',
        'notStarted.$': '$.Payload.notStarted',
      },
      resultPath: '$.focus',
    }).addCatch(summaryTask, { resultPath: '$.focusError' });
    focusTask.next(summaryTask);
    const anyUnits = new Choice(scope, 'AnyUnits')
      .when(Condition.numberEquals('$.units', 0), focusTask)
      .otherwise(exportUnits.next(focusTask));
    return planTask.next(anyUnits);
  }
}

/**
 * Child results go to S3: kept in the state, a few hundred failed units' errors would pass the
 * 256 KiB payload limit and fail the map before Summary runs. CDK would grant on the whole
 * bucket; the construct grants on this prefix alone.
 */
class PrefixResultWriter extends ResultWriterV2 {
  constructor(bucket: IBucket, prefix: string) {
    super({ bucket, prefix });
  }

  override providePolicyStatements(): PolicyStatement[] {
    return [];
  }
}
