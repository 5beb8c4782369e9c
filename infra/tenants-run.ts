// The daily run across tenants (a stack of tenants): one execution a day for every tenant,
// composed from the cost job's one declaration (COST_JOB_STATES, TENANTS_RUN_STATES) and the
// backfill state machine's own functions. Each tenant's states before the Map (Plan) run in an
// inline Map, a failure caught for that tenant alone; Lanes deals every planned unit into lanes
// under the caps (functions/lib/costs/job/lanes.ts); a Distributed Map runs each lane, its units
// one at a time by the unit function, waiting before a unit's retry; each tenant's states after
// the Map run as the job's own definition chains them (a failed Finish caught into the tenant's
// Summary, a failed Summary caught for that tenant); TenantsSummary names every failed tenant
// and fails the execution if one did.
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import {
  Choice,
  Condition,
  DefinitionBody,
  DistributedMap,
  Map as InlineMap,
  JitterType,
  JsonPath,
  LogLevel,
  Pass,
  S3JsonItemReader,
  StateMachine,
  Succeed,
  TaskInput,
  Wait,
  WaitTime,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { COST_JOB_STATES, TENANTS_RUN_STATES } from '../functions/lib/costs/job/states.ts';
import { RUNS_DIR } from '../functions/lib/destination/layout.ts';
import {
  type BackfillStateMachine,
  type BackfillStateMachineProps,
  PrefixResultWriter,
  RUN_TIMEOUT,
  THROTTLE_RETRY,
} from './backfill-state-machine.ts';
import { ExportFunction } from './export-function.ts';

export interface TenantsRunProps extends BackfillStateMachineProps {
  /** The cost job's state machine, whose functions each tenant's states invoke. */
  readonly backfill: BackfillStateMachine;
}

export class TenantsRunStateMachine extends Construct {
  readonly stateMachine: StateMachine;
  readonly lanes: ExportFunction;
  readonly summary: ExportFunction;

  constructor(scope: Construct, id: string, props: TenantsRunProps) {
    super(scope, id);
    const { settings, bucket } = props;
    const shared = (entry: string, description: string, functionId: string) =>
      new ExportFunction(this, functionId, {
        ...props,
        entry: `functions/${entry}.ts`,
        description,
        access: 'read',
      });
    this.lanes = shared(
      TENANTS_RUN_STATES.lanes.entry,
      'Daily run across tenants, state Lanes: every planned unit dealt into lanes under the caps',
      TENANTS_RUN_STATES.lanes.functionId,
    );
    this.summary = shared(
      TENANTS_RUN_STATES.summary.entry,
      "Daily run across tenants, last state: each tenant's outcome; fails naming every failed tenant",
      TENANTS_RUN_STATES.summary.functionId,
    );
    const lanesFolder = `${settings.prefix}/${RUNS_DIR}/costs/lanes`;
    this.lanes.role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'WriteLanes',
        // A lane past 5 MB is a multipart upload: aborted, its parts go with it.
        actions: ['s3:PutObject', 's3:AbortMultipartUpload'],
        resources: [bucket.arnForObjects(`${lanesFolder}/*`)],
      }),
    );
    this.summary.role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'RemoveLanes',
        actions: ['s3:GetObject', 's3:DeleteObject'],
        resources: [bucket.arnForObjects(`${lanesFolder}/*`)],
      }),
    );
    this.summary.role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'ListLanes',
        actions: ['s3:ListBucket'],
        resources: [bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${lanesFolder}/*`] } },
      }),
    );
    props.backfill.unitFunction().role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'ReadLanes',
        actions: ['s3:GetObject'],
        resources: [bucket.arnForObjects(`${lanesFolder}/*`)],
      }),
    );
    const logs = new LogGroup(this, 'Logs', {
      retention: RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const mapResults = `${settings.prefix}/${RUNS_DIR}/costs/map-results`;
    this.stateMachine = new StateMachine(this, 'StateMachine', {
      comment: 'Cloudforet cost export, every tenant in one daily run: {"tenants": ["<id>", …]}',
      definitionBody: DefinitionBody.fromChainable(this.definition(props, mapResults)),
      timeout: RUN_TIMEOUT,
      logs: { destination: logs, level: LogLevel.ERROR, includeExecutionData: false },
    });
    this.stateMachine.addToRolePolicy(
      new PolicyStatement({
        sid: 'ReadLanes',
        actions: ['s3:GetObject'],
        resources: [bucket.arnForObjects(`${lanesFolder}/*`)],
      }),
    );
    this.stateMachine.addToRolePolicy(
      new PolicyStatement({
        sid: 'WriteMapResults',
        actions: ['s3:PutObject', 's3:GetObject', 's3:ListMultipartUploadParts', 's3:AbortMultipartUpload'],
        resources: [bucket.arnForObjects(`${mapResults}/*`)],
      }),
    );
  }

  /** The caps the Lanes state deals under: the run's, one endpoint's, one tenant's. */
  static caps(settings: TenantsRunProps['settings']) {
    const overall = settings.backfillMaxConcurrency;
    return {
      overall,
      perEndpoint: settings.endpointMaxConcurrency ?? overall,
      perTenant: settings.tenantMaxConcurrency ?? overall,
    };
  }

  private definition(props: TenantsRunProps, mapResultsPrefix: string) {
    const scope = new Construct(this, 'Definition');
    const { backfill, settings } = props;
    const fn = (state: string) => backfill.stateFunction(state).function;
    const mapAt = COST_JOB_STATES.findIndex((s) => s.map);
    const before = COST_JOB_STATES.slice(0, mapAt);
    const after = COST_JOB_STATES.slice(mapAt + 1);
    const unitState = COST_JOB_STATES[mapAt]!;

    // Each tenant's states before the Map, its failure caught as planError.
    const planned = before.map(
      (state) =>
        new LambdaInvoke(scope, state.state, {
          lambdaFunction: fn(state.state),
          payload: TaskInput.fromJsonPathAt('$'),
          outputPath: '$.Payload',
        }),
    );
    const planFailed = new Pass(scope, 'NotPlanned');
    for (const task of planned) task.addCatch(planFailed, { resultPath: '$.planError' });
    for (let i = 1; i < planned.length; i++) planned[i - 1]!.next(planned[i]!);
    const planTenants = new InlineMap(scope, 'PlanTenants', {
      itemsPath: '$.tenants',
      itemSelector: { 'tenant.$': '$$.Map.Item.Value' },
      maxConcurrency: TENANTS_RUN_STATES.planConcurrency,
      resultPath: '$.planned',
    });
    planTenants.itemProcessor(planned[0]!);

    const lanes = new LambdaInvoke(scope, TENANTS_RUN_STATES.lanes.state, {
      lambdaFunction: this.lanes.function,
      payload: TaskInput.fromObject({
        runId: JsonPath.stringAt('$$.Execution.Name'),
        planned: JsonPath.listAt('$.planned'),
        caps: TenantsRunStateMachine.caps(settings),
      }),
      resultSelector: {
        'bucket.$': '$.Payload.bucket',
        'lanesObjectKey.$': '$.Payload.lanesObjectKey',
        'lanes.$': '$.Payload.lanes',
        'units.$': '$.Payload.units',
      },
      resultPath: '$.lanes',
    });

    // One lane: the unit function from where it returned, after the wait it asks for.
    const runLane = new LambdaInvoke(scope, 'RunLane', {
      lambdaFunction: fn(unitState.state),
      payload: TaskInput.fromJsonPathAt('$'),
      outputPath: '$.Payload',
    })
      // First: States.TaskFailed matches a throttle too, and retriers are tried in order.
      .addRetry(THROTTLE_RETRY)
      .addRetry({
        // The lane's own failure (its object unread, the invocation lost): the same step again.
        errors: ['States.TaskFailed'],
        interval: Duration.seconds(30),
        backoffRate: 2,
        maxAttempts: 2,
        jitterStrategy: JitterType.FULL,
      });
    const retryWait = new Wait(scope, 'BeforeRetry', { time: WaitTime.secondsPath('$.wait') });
    retryWait.next(runLane);
    runLane.next(
      new Choice(scope, 'LaneDone')
        .when(Condition.booleanEquals('$.done', true), new Succeed(scope, 'LaneFinished'))
        .when(Condition.numberGreaterThan('$.wait', 0), retryWait)
        .otherwise(runLane),
    );
    const exportUnits = new DistributedMap(scope, unitState.state, {
      itemReader: new S3JsonItemReader({
        bucketNamePath: JsonPath.stringAt('$.lanes.bucket'),
        key: JsonPath.stringAt('$.lanes.lanesObjectKey'),
      }),
      // Lanes.ts makes at most this many lanes: all of them run from the start.
      maxConcurrency: settings.backfillMaxConcurrency,
      toleratedFailurePercentage: 100,
      resultWriterV2: new PrefixResultWriter(props.bucket, mapResultsPrefix),
      resultPath: JsonPath.DISCARD,
    });
    exportUnits.itemProcessor(runLane);

    // Each tenant's states after the Map, chained as the job's own definition chains them.
    const tasks = after.map(
      (state) =>
        new LambdaInvoke(scope, state.state, {
          lambdaFunction: fn(state.state),
          payload: TaskInput.fromJsonPathAt('$'),
          ...(state === after.at(-1)
            ? {
                resultSelector: {
                  'units.$': '$.Payload.units',
                  'written.$': '$.Payload.written',
                  'unchanged.$': '$.Payload.unchanged',
                  'failed.$': '$.Payload.failed',
                },
                resultPath: '$.summary',
              }
            : { resultPath: JsonPath.DISCARD }),
        }),
    );
    const summaryTask = tasks.at(-1)!;
    summaryTask.addCatch(new Pass(scope, 'TenantFailed'), { resultPath: '$.summaryError' });
    for (let i = 0; i < tasks.length - 1; i++) {
      tasks[i]!.addCatch(summaryTask, { resultPath: '$.finishError' });
      tasks[i]!.next(tasks[i + 1]!);
    }
    const tenants = new InlineMap(scope, 'Tenants', {
      itemsPath: '$.planned',
      maxConcurrency: TENANTS_RUN_STATES.planConcurrency,
      resultPath: '$.outcomes',
    });
    tenants.itemProcessor(
      new Choice(scope, 'WasPlanned')
        .when(Condition.isPresent('$.planError'), new Pass(scope, 'PlanFailed'))
        .otherwise(tasks[0]!),
    );
    const summary = new LambdaInvoke(scope, TENANTS_RUN_STATES.summary.state, {
      lambdaFunction: this.summary.function,
      payload: TaskInput.fromObject({
        runId: JsonPath.stringAt('$$.Execution.Name'),
        outcomes: JsonPath.listAt('$.outcomes'),
      }),
      outputPath: '$.Payload',
    });

    planTenants.next(lanes);
    lanes.next(
      new Choice(scope, 'AnyLanes')
        .when(Condition.numberEquals('$.lanes.lanes', 0), tenants)
        .otherwise(exportUnits),
    );
    exportUnits.next(tenants);
    tenants.next(summary);
    return planTenants;
  }
}
