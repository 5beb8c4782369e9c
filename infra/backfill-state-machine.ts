// The cost job on Step Functions (the daily schedule and backfills), generated from the job's one
// declaration of its states (functions/lib/costs/job/states.ts): Plan writes the units and the job's
// state to S3, a Distributed Map exports each unit in its own invocation (at most
// backfillMaxConcurrency at once, to spare the Cloudforet API), Finish runs every step after the
// units, and Summary fails the execution on any failure or work left.
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import {
  Choice,
  Condition,
  DefinitionBody,
  DistributedMap,
  type INextable,
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
import { COST_JOB_STATES, type CostJobState } from '../functions/lib/costs/job/states.ts';
import { RUNS_DIR } from '../functions/lib/destination/layout.ts';
import {
  bucketKeyStatements,
  dataRoot,
  ExportFunction,
  type ExportFunctionProps,
} from './export-function.ts';

export const RUN_TIMEOUT = Duration.hours(24);
const THROTTLE_INTERVAL_SECONDS = 10;
const THROTTLE_MAX_DELAY_SECONDS = 300;

/**
 * Throttled: another execution holds the unit function's reserved concurrency. Waiting is all
 * that helps, and that execution may run as long as the state machine's timeout.
 */
export const THROTTLE_RETRY = {
  errors: ['Lambda.TooManyRequestsException'],
  interval: Duration.seconds(THROTTLE_INTERVAL_SECONDS),
  backoffRate: 2,
  maxDelay: Duration.seconds(THROTTLE_MAX_DELAY_SECONDS),
  // Five of the waits ramp up from 10 s to the 300 s cap: the rest cover the whole timeout.
  maxAttempts: Math.ceil(RUN_TIMEOUT.toSeconds() / THROTTLE_MAX_DELAY_SECONDS) + 5,
};

export type BackfillStateMachineProps = Omit<
  ExportFunctionProps,
  'entry' | 'description' | 'reservedConcurrency' | 'access' | 'focusCatalog'
>;

export class BackfillStateMachine extends Construct {
  readonly stateMachine: StateMachine;
  /** One function per state of the cost job, by state name (Plan, ExportUnits, Finish, Summary). */
  readonly functions: Readonly<Record<string, ExportFunction>>;

  constructor(scope: Construct, id: string, props: BackfillStateMachineProps) {
    super(scope, id);
    // Without this flag the map silently ignores resultWriterV2.
    this.node.setContext(STEPFUNCTIONS_USE_DISTRIBUTED_MAP_RESULT_WRITER_V2, true);
    const { settings, bucket } = props;
    const fns: Record<string, ExportFunction> = {};
    for (const state of COST_JOB_STATES) {
      fns[state.state] = new ExportFunction(this, state.functionId, {
        ...props,
        entry: `functions/${state.entry}.ts`,
        description: `Cost job, state ${state.state}: ${state.steps.join(', ')}`,
        // Reserving exactly the map's concurrency caps the API load even when two executions overlap.
        reservedConcurrency:
          state.map && settings.reservedConcurrency !== undefined
            ? settings.backfillMaxConcurrency
            : undefined,
        // The Summary reads the job's state and removes it; it has no use for the secret.
        access: state.state === 'Summary' ? 'read' : undefined,
        // The state that compacts keeps the focus table's partitions (every tenant's, with tenants).
        focusCatalog: state.steps.includes('compaction'),
      });
    }
    this.functions = fns;
    // With tenants, each tenant's job lives in its own folder; the Map's results in the shared one.
    const runs = `${dataRoot(settings)}/${RUNS_DIR}`;
    // The Summary removes the job's folder (its state, units and unit reports) once it has reported.
    this.stateFunction('Summary').role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'RemoveFinishedJob',
        actions: ['s3:DeleteObject'],
        resources: [bucket.arnForObjects(`${runs}/costs/*`)],
      }),
    );
    const mapResults = `${settings.prefix}/${RUNS_DIR}/costs/map-results`;
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

  /** The function the Map invokes for each unit (each lane, in the daily run across tenants). */
  unitFunction(): ExportFunction {
    return this.stateFunction(COST_JOB_STATES.find((s) => s.map)!.state);
  }

  /** The function of a state of COST_JOB_STATES. */
  stateFunction(state: string): ExportFunction {
    const fn = this.functions[state];
    if (!fn) throw new Error(`the cost job has no state ${state}`);
    return fn;
  }

  /**
   * The definition, state for state from COST_JOB_STATES: each task gets the job's reference (keys
   * and a count) and hands it on unchanged, so the execution's state stays small whatever the
   * number of units or failures. The Map is skipped when nothing is planned; a failed Finish
   * still reaches the Summary, which reports it and fails the execution.
   */
  private definition(props: BackfillStateMachineProps, mapResultsPrefix: string) {
    // States have their own scope: their ids are the state names, and Plan/Summary are taken.
    const scope = new Construct(this, 'Definition');
    const tasks = COST_JOB_STATES.map((state) => this.task(scope, state, props, mapResultsPrefix));
    const summary = tasks.at(-1)!;
    let last = tasks[0] as INextable;
    for (let i = 1; i < tasks.length; i++) {
      const task = tasks[i]!;
      if (COST_JOB_STATES[i]!.map) {
        // Nothing planned: straight to the state after the Map.
        last.next(
          new Choice(scope, 'AnyUnits')
            .when(Condition.numberEquals('$.units', 0), tasks[i + 1]!)
            .otherwise(task),
        );
      } else {
        if (task !== summary) (task as LambdaInvoke).addCatch(summary, { resultPath: '$.finishError' });
        // The Map's next: the state after it, which the Choice reaches directly too.
        last.next(task);
      }
      last = task as INextable;
    }
    return tasks[0]!;
  }

  private task(
    scope: Construct,
    state: CostJobState,
    props: BackfillStateMachineProps,
    mapResultsPrefix: string,
  ): LambdaInvoke | DistributedMap {
    const lambdaFunction = this.stateFunction(state.state).function;
    if (state.map) {
      const unitTask = new LambdaInvoke(scope, 'ExportUnit', { lambdaFunction, outputPath: '$.Payload' })
        .addRetry({
          // UnitFailedError (auth, bad request) is not listed: a retry cannot fix it.
          errors: ['UnitRetryableError'],
          interval: Duration.seconds(30),
          backoffRate: 2,
          maxAttempts: 3,
          jitterStrategy: JitterType.FULL,
        })
        .addRetry(THROTTLE_RETRY);
      const map = new DistributedMap(scope, state.state, {
        itemReader: new S3JsonItemReader({
          bucketNamePath: JsonPath.stringAt('$.bucket'),
          key: JsonPath.stringAt('$.unitsObjectKey'),
        }),
        // With tenants each tenant's job is its own execution: the tenant's cap here, the overall
        // one in the unit function's reserved concurrency, so one tenant's backfill leaves room.
        maxConcurrency: props.settings.tenantMaxConcurrency ?? props.settings.backfillMaxConcurrency,
        // Failed units are the Finish state's to gather and the Summary's to report: the map never fails on them.
        toleratedFailurePercentage: 100,
        resultWriterV2: new PrefixResultWriter(props.bucket, mapResultsPrefix),
        resultPath: JsonPath.DISCARD,
      });
      map.itemProcessor(unitTask);
      return map;
    }
    if (state === COST_JOB_STATES[0])
      return new LambdaInvoke(scope, state.state, { lambdaFunction, outputPath: '$.Payload' });
    if (state === COST_JOB_STATES.at(-1))
      return new LambdaInvoke(scope, state.state, {
        lambdaFunction,
        payload: TaskInput.fromJsonPathAt('$'),
        outputPath: '$.Payload',
      });
    // The reference passes on unchanged: the state's own output is its figures, in its logs.
    return new LambdaInvoke(scope, state.state, {
      lambdaFunction,
      payload: TaskInput.fromJsonPathAt('$'),
      resultPath: JsonPath.DISCARD,
    });
  }
}

/**
 * Child results go to S3: kept in the state, a few hundred failed units' errors would pass the
 * 256 KiB payload limit and fail the map before Summary runs. CDK would grant on the whole
 * bucket; the construct grants on this prefix alone.
 */
export class PrefixResultWriter extends ResultWriterV2 {
  constructor(bucket: IBucket, prefix: string) {
    super({ bucket, prefix });
  }

  override providePolicyStatements(): PolicyStatement[] {
    return [];
  }
}
