// One shape for every Lambda entry: read the config, validate the event, connect the adapters,
// derive the deadline from the context's remaining time, run one use case, publish its metrics,
// log one summary line and return the summary (the console shows it). A result that reports
// failed units fails the invocation, so Lambda's Errors metric and the alarms see it. The result
// and any error leave through the one redactor (redact/redact.ts).
import type { Context } from 'aws-lambda';
import { type FunctionConfig, readConfig } from '../config.ts';
import { RunFailedError } from '../errors.ts';
import { limitHeapGrowth } from '../heap-growth.ts';
import { createLogger, type Logger } from '../log.ts';
import { redactError, redactValue } from '../redact/redact.ts';
import type { Sink } from '../storage/sink.ts';
import { runDeadline } from './deadline.ts';
import { publishRunMetrics, type RunFigures } from './run-metrics.ts';
import { nameTenant, stampTenant, type TenantScope, tenantScope } from './tenant-scope.ts';

/** What every use case is given besides its request. */
export interface EntryContext {
  readonly name: string;
  readonly config: FunctionConfig;
  readonly log: Logger;
  /** The invocation's request id; undefined outside Lambda. */
  readonly runId: string | undefined;
  /** The tenant the event named, in a stack of tenants (tenant-scope.ts); undefined otherwise. */
  readonly tenant?: string | undefined;
  /** False once a unit started now might not finish before the function's timeout. */
  readonly shouldStartUnit: () => boolean;
  /** Aborts shortly before the timeout: units still running end as UNIT_INTERRUPTED, untouched. */
  readonly signal: AbortSignal;
}

export interface UseCase<C extends { readonly sink: Sink }, Req, Res> {
  /** Opens the adapters (a Cloudforet session and the S3 sink, or the sink alone). */
  connect(entry: EntryContext): Promise<C>;
  /** Validates the event before anything is connected: a bad event costs no request. */
  parse(event: unknown, config: FunctionConfig, now: Date): Req;
  run(entry: EntryContext & C, request: Req): Promise<Res>;
  figures(result: Res, connected: C): RunFigures;
  /** Published when the use case throws (what the failure alarm counts); nothing when absent. */
  failedFigures?(connected: C): RunFigures;
  /** Why the invocation fails although the use case returned (failed units), if it does. */
  failure?(result: Res): string | undefined;
  /** The summary line, for use cases that do not log their own. */
  summary?(result: Res): readonly [message: string, fields: Record<string, unknown>];
}

export function lambdaEntry<C extends { readonly sink: Sink }, Req, Res>(
  name: string,
  useCase: UseCase<C, Req, Res>,
): (event: unknown, context?: Context) => Promise<Res> {
  // Entries are built when their module loads: before the first invocation allocates anything.
  limitHeapGrowth();
  const invoke = invocation(name, useCase);
  // What the Lambda console, Step Functions and the caller see passes the one redactor, failures too.
  return async (event, context) => {
    try {
      return redactValue(await invoke(event, context));
    } catch (error) {
      throw redactError(error);
    }
  };
}

function invocation<C extends { readonly sink: Sink }, Req, Res>(
  name: string,
  useCase: UseCase<C, Req, Res>,
): (event: unknown, context?: Context) => Promise<Res> {
  return async (given, context) => {
    const { env, event, tenant } = tenantScope(process.env, given);
    return serve(name, useCase, { env, event, tenant, context }).catch((error: unknown) => {
      throw nameTenant(error, tenant);
    });
  };
}

async function serve<C extends { readonly sink: Sink }, Req, Res>(
  name: string,
  useCase: UseCase<C, Req, Res>,
  invoked: {
    env: TenantScope['env'];
    event: unknown;
    tenant: string | undefined;
    context?: Context | undefined;
  },
): Promise<Res> {
  const { env, event, tenant, context } = invoked;
  const config = readConfig(env);
  const log = createLogger({
    level: config.logLevel,
    fields: { function: name, requestId: context?.awsRequestId, ...(tenant && { tenant }) },
  });
  const request = useCase.parse(event, config, new Date());
  // A unit started with less than two request timeouts left might not finish.
  const deadline = runDeadline(context, {
    reserveMs: 2 * config.requestTimeoutMs + 10_000,
    hardStopMs: 5_000,
  });
  try {
    const entry: EntryContext = {
      name,
      config,
      log,
      runId: context?.awsRequestId,
      tenant,
      shouldStartUnit: deadline.shouldStartUnit,
      signal: deadline.signal,
    };
    const connected = await useCase.connect(entry);
    const result = await useCase.run({ ...entry, ...connected }, request).catch((error: unknown) => {
      if (useCase.failedFigures) publishRunMetrics(name, useCase.failedFigures(connected), tenant);
      throw error;
    });
    publishRunMetrics(name, useCase.figures(result, connected), tenant);
    const line = useCase.summary?.(result);
    if (line) log.info(line[0], line[1]);
    const failure = useCase.failure?.(result);
    if (failure !== undefined) throw new RunFailedError(failure);
    return stampTenant(result, tenant);
  } finally {
    deadline.dispose();
  }
}
