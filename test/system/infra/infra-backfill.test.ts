// The cost job's state machine: Plan -> Distributed Map over the planned units -> Finish ->
// Summary, generated from COST_JOB_STATES and read from the synthesized definition (its Fn::Join
// resolved with placeholders for tokens).
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { COST_JOB_STATES, COST_JOB_STEPS } from '../../../functions/lib/costs/job/states.ts';
import { backfillUnitsKey as unitsKey } from '../../../functions/lib/destination/layout.ts';
import { joinKey } from '../../../functions/lib/storage/sink.ts';
import type { Json } from '../../support/synth-stack.ts';
import { idOf, synth } from '../../support/synth-stack.ts';

interface Definition extends Json {
  readonly StartAt: string;
  readonly States: Record<string, State>;
}
interface State extends Json {
  readonly Retry?: ReadonlyArray<{ readonly ErrorEquals: readonly string[] }>;
  readonly ItemProcessor?: Definition;
}

/** A CloudFormation token as it would read once deployed: `aws`, `${Id}` or `${Id.Attribute}`. */
function placeholder(token: { Ref?: string; 'Fn::GetAtt'?: [string, string] }): string {
  if (token.Ref === 'AWS::Partition') return 'aws';
  if (typeof token.Ref === 'string') return `\${${token.Ref}}`;
  const [id, attribute] = token['Fn::GetAtt'] ?? [];
  if (typeof id === 'string') return `\${${id}.${attribute}}`;
  throw new Error(`unexpected token in the definition: ${JSON.stringify(token)}`);
}

/** The state machine's definition as JSON. */
function definitionOf(template: Template, machineId = 'Backfill'): Definition {
  const machine = template.findResources('AWS::StepFunctions::StateMachine')[
    idOf(template, 'AWS::StepFunctions::StateMachine', machineId)
  ]!;
  const [separator, parts] = machine.Properties.DefinitionString['Fn::Join'] as [
    string,
    Array<string | { Ref?: string; 'Fn::GetAtt'?: [string, string] }>,
  ];
  return JSON.parse(parts.map((p) => (typeof p === 'string' ? p : placeholder(p))).join(separator));
}

function statementsOfPolicy(template: Template, policyPrefix: string): Json[] {
  const policy =
    template.findResources('AWS::IAM::Policy')[idOf(template, 'AWS::IAM::Policy', policyPrefix)]!;
  return policy.Properties.PolicyDocument.Statement;
}

/** The named state; the map's item processor's with `inMap`. */
function stateOf(definition: Definition, name: string, inMap = false): State {
  const states = inMap ? definition.States.ExportUnits?.ItemProcessor?.States : definition.States;
  const state = states?.[name];
  expect(state, name).toBeDefined();
  return state!;
}

const functionId = (template: Template, name: string) =>
  idOf(template, 'AWS::Lambda::Function', `Backfill${name}Function`);
/** A function's ARN as the resolved definition shows it. */
const fn = (template: Template, name: string) => `\${${functionId(template, name)}.Arn}`;

describe('the backfill state machine with defaults', () => {
  let t: Template;
  let definition: Definition;
  let machine: string;
  const state = (name: string) => stateOf(definition, name);
  const unit = () => stateOf(definition, 'ExportUnit', true);
  beforeAll(() => {
    t = synth();
    definition = definitionOf(t);
    machine = idOf(t, 'AWS::StepFunctions::StateMachine');
  });

  it('has one state per state of the cost job, in its order, whose slices cover every step once', () => {
    const names = Object.keys(definition.States).filter((n) => n !== 'AnyUnits');
    expect(names).toEqual(COST_JOB_STATES.map((s) => s.state));
    expect(COST_JOB_STATES.flatMap((s) => s.steps)).toEqual([...COST_JOB_STEPS]);
    for (const s of COST_JOB_STATES) {
      const fnId = functionId(t, s.functionId);
      const resource = t.findResources('AWS::Lambda::Function')[fnId]!;
      expect(resource.Properties.Description).toBe(`Cost job, state ${s.state}: ${s.steps.join(', ')}`);
    }
  });

  it('runs Plan, skips to Finish when nothing is planned, else exports the units, then Finish, then Summary', () => {
    expect(definition.StartAt).toBe('Plan');
    expect(Object.keys(definition.States)).toEqual(['Plan', 'AnyUnits', 'ExportUnits', 'Finish', 'Summary']);
    expect(state('Plan').Next).toBe('AnyUnits');
    expect(state('AnyUnits')).toEqual({
      Type: 'Choice',
      Choices: [{ Variable: '$.units', NumericEquals: 0, Next: 'Finish' }],
      Default: 'ExportUnits',
    });
    expect(state('ExportUnits').Next).toBe('Finish');
    expect(state('Finish').Next).toBe('Summary');
    expect(state('Summary').End).toBe(true);
    expect(definition.TimeoutSeconds).toBe(86_400);
  });

  it('hands Finish the job reference, keeps it as the state, and reaches Summary even when Finish fails', () => {
    expect(state('Finish')).toMatchObject({
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: fn(t, 'Finish'), 'Payload.$': '$' },
      ResultPath: null,
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.finishError', Next: 'Summary' }],
    });
    // Nothing but keys and a count travels: no selector copies a list into the execution's state.
    expect(JSON.stringify(definition)).not.toContain('ResultSelector');
  });

  it('keeps the plan as the state through the map and hands all of it to Summary', () => {
    expect(state('Plan')).toMatchObject({
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: fn(t, 'Plan'), 'Payload.$': '$' },
      OutputPath: '$.Payload',
    });
    expect(state('ExportUnits').ResultPath).toBeNull();
    expect(state('Summary')).toMatchObject({
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: fn(t, 'Summary'), 'Payload.$': '$' },
      OutputPath: '$.Payload',
    });
  });

  it('retries Plan and Summary on Lambda service errors', () => {
    for (const name of ['Plan', 'Summary']) {
      expect(state(name).Retry).toEqual([
        {
          ErrorEquals: [
            'Lambda.ClientExecutionTimeoutException',
            'Lambda.ServiceException',
            'Lambda.AWSLambdaException',
            'Lambda.SdkClientException',
          ],
          IntervalSeconds: 2,
          MaxAttempts: 6,
          BackoffRate: 2,
        },
      ]);
    }
  });

  it('reads the units file the plan names with a Distributed Map, 4 at a time, tolerating every failure', () => {
    const map = state('ExportUnits');

    expect(map.Type).toBe('Map');
    expect(map.ItemProcessor?.ProcessorConfig).toEqual({ Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' });
    expect(map.ItemReader).toEqual({
      Resource: 'arn:aws:states:::s3:getObject',
      ReaderConfig: { InputType: 'JSON' },
      Parameters: { 'Bucket.$': '$.bucket', 'Key.$': '$.unitsObjectKey' },
    });
    expect(map.MaxConcurrency).toBe(4);
    expect(map.ToleratedFailurePercentage).toBe(100);
  });

  it('writes the child results to S3 under the runs prefix, not into the state', () => {
    expect(state('ExportUnits').ResultWriter).toEqual({
      Resource: 'arn:aws:states:::s3:putObject',
      Parameters: {
        Bucket: `\${${idOf(t, 'AWS::S3::Bucket')}}`,
        Prefix: 'cloudforet/_runs/costs/map-results',
      },
    });
  });

  it('exports each item with the unit function', () => {
    expect(state('ExportUnits').ItemProcessor?.StartAt).toBe('ExportUnit');
    expect(unit()).toMatchObject({
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: fn(t, 'Unit'), 'Payload.$': '$' },
      End: true,
    });
  });

  it('retries a unit on UnitRetryableError with backoff and jitter, never on a permanent failure', () => {
    const retriers = unit().Retry ?? [];
    const retried = retriers.flatMap((r) => r.ErrorEquals);

    expect(retriers).toContainEqual({
      ErrorEquals: ['UnitRetryableError'],
      IntervalSeconds: 30,
      MaxAttempts: 3,
      BackoffRate: 2,
      JitterStrategy: 'FULL',
    });
    for (const error of ['UnitFailedError', 'States.ALL', 'States.TaskFailed']) {
      expect(retried).not.toContain(error);
    }
    expect(unit().Catch).toBeUndefined();
  });

  it('retries a throttled unit for at least as long as a concurrent execution may run', () => {
    const throttled = (unit().Retry ?? []).filter((r) =>
      r.ErrorEquals.includes('Lambda.TooManyRequestsException'),
    );

    expect(throttled).toHaveLength(1);
    const retrier = throttled[0] as unknown as Record<string, number | string[] | undefined>;
    expect(retrier.ErrorEquals).toEqual(['Lambda.TooManyRequestsException']);
    expect(retrier.JitterStrategy).toBeUndefined();
    let waited = 0;
    for (let attempt = 0; attempt < Number(retrier.MaxAttempts); attempt++) {
      const delay = Number(retrier.IntervalSeconds) * Number(retrier.BackoffRate) ** attempt;
      waited += Math.min(delay, Number(retrier.MaxDelaySeconds ?? Number.POSITIVE_INFINITY));
    }
    expect(waited).toBeGreaterThanOrEqual(Number(definition.TimeoutSeconds));
  });

  it('reserves the map’s concurrency for the unit function', () => {
    t.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'Cost job, state ExportUnits: units',
      ReservedConcurrentExecutions: 4,
    });
  });

  it('lets its role invoke exactly the four functions and touch S3 only under <prefix>/_runs/', () => {
    const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
    const under = (path: string) => ({ 'Fn::Join': ['', [arnOf(idOf(t, 'AWS::S3::Bucket')), path]] });
    const invoke = (name: string) => {
      const arn = arnOf(functionId(t, name));
      return {
        Action: 'lambda:InvokeFunction',
        Effect: 'Allow',
        Resource: [arn, { 'Fn::Join': ['', [arn, ':*']] }],
      };
    };

    const statements = statementsOfPolicy(t, 'BackfillStateMachineRoleDefaultPolicy');

    expect(statements).toEqual([
      invoke('Plan'),
      invoke('Finish'),
      invoke('Summary'),
      invoke('Unit'),
      expect.objectContaining({ Action: expect.arrayContaining(['logs:CreateLogDelivery']), Resource: '*' }),
      {
        Sid: 'ReadBackfillUnits',
        Action: 's3:GetObject',
        Effect: 'Allow',
        Resource: under('/cloudforet/_runs/*'),
      },
      {
        Sid: 'WriteMapResults',
        Action: ['s3:PutObject', 's3:GetObject', 's3:ListMultipartUploadParts', 's3:AbortMultipartUpload'],
        Effect: 'Allow',
        Resource: under('/cloudforet/_runs/costs/map-results/*'),
      },
    ]);
  });

  it('reads units where the plan function writes them', () => {
    expect(joinKey('cloudforet', unitsKey('run-1')).startsWith('cloudforet/_runs/')).toBe(true);
  });

  it('lets the Distributed Map start executions of this state machine alone', () => {
    expect(statementsOfPolicy(t, 'BackfillStateMachineDistributedMapPolicy')[0]).toEqual({
      Action: 'states:StartExecution',
      Effect: 'Allow',
      Resource: { Ref: machine },
    });
  });

  it('logs errors without execution data to its own log group', () => {
    t.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      LoggingConfiguration: {
        Destinations: [
          {
            CloudWatchLogsLogGroup: {
              LogGroupArn: { 'Fn::GetAtt': [idOf(t, 'AWS::Logs::LogGroup', 'BackfillLogs'), 'Arn'] },
            },
          },
        ],
        IncludeExecutionData: false,
        Level: 'ERROR',
      },
    });
  });

  it('alarms on failed and on timed-out executions, notifying the topic', () => {
    for (const metric of ['ExecutionsFailed', 'ExecutionsTimedOut']) {
      t.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/States',
        MetricName: metric,
        Dimensions: [{ Name: 'StateMachineArn', Value: { Ref: machine } }],
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: [{ Ref: idOf(t, 'AWS::SNS::Topic', 'AlarmsTopic') }],
      });
    }
  });

  it('outputs its ARN and a ready-to-run start-execution command', () => {
    const outputs = t.findOutputs('*');

    expect(outputs.BackfillStateMachineArn!.Value).toEqual({ Ref: machine });
    expect(outputs.StartBackfillCommand!.Value).toEqual({
      'Fn::Join': [
        '',
        [
          'aws stepfunctions start-execution --region ',
          { Ref: 'AWS::Region' },
          ' --state-machine-arn ',
          { Ref: machine },
          ` --input '{"from":"2026-01-01","to":"2026-03-31"}'`,
        ],
      ],
    });
  });
});

describe('the backfill state machine with -c backfillMaxConcurrency=7', () => {
  it('runs 7 units at once and reserves 7 for the unit function', () => {
    const t = synth({ backfillMaxConcurrency: '7' });

    expect(stateOf(definitionOf(t), 'ExportUnits').MaxConcurrency).toBe(7);
    t.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'Cost job, state ExportUnits: units',
      ReservedConcurrentExecutions: 7,
    });
  });
});

describe('the backfill state machine of tenants with -c tenantMaxConcurrency=2', () => {
  it("runs 2 units of one tenant's job at once and reserves backfillMaxConcurrency across tenants", () => {
    const tenants = [{ id: 'acme', secretName: 'cloudforet/acme' }];
    const t = synth({ tenants, backfillMaxConcurrency: '8', tenantMaxConcurrency: '2' });

    expect(stateOf(definitionOf(t), 'ExportUnits').MaxConcurrency).toBe(2);
    expect(stateOf(definitionOf(t, 'TenantsRun'), 'Lanes').Parameters).toMatchObject({
      Payload: { caps: { overall: 8, perEndpoint: 8, perTenant: 2 } },
    });
    t.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'Cost job, state ExportUnits: units',
      ReservedConcurrentExecutions: 8,
    });
  });
});

describe('the daily run across tenants', () => {
  const tenants = [
    { id: 'acme', secretName: 'cloudforet/acme' },
    { id: 'beta', endpoint: 'https://cf-two.example.com', secretName: 'cloudforet/beta' },
  ];
  let t: Template;
  let d: Definition;
  beforeAll(() => {
    t = synth({
      tenants,
      backfillMaxConcurrency: '8',
      tenantMaxConcurrency: '2',
      endpointMaxConcurrency: '5',
    });
    d = definitionOf(t, 'TenantsRun');
  });

  it("plans each tenant with the cost job's own Plan function, catching a tenant's failure for it alone", () => {
    const plan = d.States.PlanTenants as State & {
      ItemProcessor: { StartAt: string; States: Record<string, State> };
    };
    expect(d.StartAt).toBe('PlanTenants');
    expect(plan).toMatchObject({ Type: 'Map', ItemsPath: '$.tenants', ResultPath: '$.planned' });
    expect(plan.ItemProcessor.StartAt).toBe('Plan');
    expect(JSON.stringify(plan.ItemProcessor.States.Plan!.Parameters)).toContain(fn(t, 'Plan'));
    expect(plan.ItemProcessor.States.Plan!.Catch).toEqual([
      expect.objectContaining({ ErrorEquals: ['States.ALL'], ResultPath: '$.planError', Next: 'NotPlanned' }),
    ]);
  });

  it('deals the units into lanes under the three caps and runs every lane, each from where it returned', () => {
    const lanes = d.States.Lanes!;
    expect((lanes.Parameters as { Payload: { caps: unknown } }).Payload.caps).toEqual({
      overall: 8,
      perEndpoint: 5,
      perTenant: 2,
    });
    const map = d.States.ExportUnits as State & {
      ItemProcessor: { StartAt: string; States: Record<string, State> };
    };
    expect(map.MaxConcurrency).toBe(8);
    expect(map.ItemProcessor.StartAt).toBe('RunLane');
    const lane = map.ItemProcessor.States;
    expect(JSON.stringify(lane.RunLane!.Parameters)).toContain(fn(t, 'Unit'));
    expect(lane.RunLane!.Next).toBe('LaneDone');
    expect(lane.LaneDone!.Choices).toEqual([
      expect.objectContaining({ Variable: '$.done', BooleanEquals: true, Next: 'LaneFinished' }),
      expect.objectContaining({ Variable: '$.wait', NumericGreaterThan: 0, Next: 'BeforeRetry' }),
    ]);
    expect(lane.LaneDone!.Default).toBe('RunLane');
    expect(lane.BeforeRetry).toMatchObject({ Type: 'Wait', SecondsPath: '$.wait', Next: 'RunLane' });
    // A throttle is waited out first: States.TaskFailed would match it too, and retriers go in order.
    expect((lane.RunLane!.Retry as { ErrorEquals: string[] }[]).map((r) => r.ErrorEquals).slice(1)).toEqual([
      ['Lambda.TooManyRequestsException'],
      ['States.TaskFailed'],
    ]);
  });

  it("finishes and sums up each tenant as the job's definition does, then names the failed tenants", () => {
    const tenantsMap = d.States.Tenants as State & {
      ItemProcessor: { StartAt: string; States: Record<string, State> };
    };
    expect(tenantsMap).toMatchObject({
      Type: 'Map',
      ItemsPath: '$.planned',
      ResultPath: '$.outcomes',
      Next: 'TenantsSummary',
    });
    const s = tenantsMap.ItemProcessor.States;
    expect(s.WasPlanned!.Default).toBe('Finish');
    expect(s.Finish!.Catch).toEqual([
      expect.objectContaining({ ResultPath: '$.finishError', Next: 'Summary' }),
    ]);
    expect(s.Summary!.Catch).toEqual([
      expect.objectContaining({ ResultPath: '$.summaryError', Next: 'TenantFailed' }),
    ]);
    expect(JSON.stringify(s.Summary!.Parameters)).toContain(fn(t, 'Summary'));
    expect(d.States.AnyLanes!.Default).toBe('ExportUnits');
  });

  it("is the stack's one daily cost schedule, started with every tenant's id", () => {
    const schedules = Object.values(t.findResources('AWS::Scheduler::Schedule'));
    expect(schedules).toHaveLength(1);
    expect(schedules[0]!.Properties.Target.Input).toBe(JSON.stringify({ tenants: ['acme', 'beta'] }));
    expect(JSON.stringify(schedules[0]!.Properties.Target.Arn)).toContain('TenantsRun');
  });
});
