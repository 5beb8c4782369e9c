// Named errors with stable codes. Messages say what to do; none ever carries the secret: each
// passes the one redactor as it is made, so an answer that echoes the token is not quoted back.
import { redact } from './redact/redact.ts';

export class ExportError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(redact(message), options);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * A Cloudforet HTTP answer that was not a success, or a request that never got one. Its code is
 * CLOUDFORET_ and the API's own code, else the HTTP status, else NETWORK; or one the client names.
 */
export class CloudforetApiError extends ExportError {
  readonly status: number | undefined;
  readonly apiCode: string | undefined;
  readonly path: string;
  readonly retryable: boolean;
  /** What a proxy's Retry-After asked for, when it sent one. */
  readonly retryAfterMs: number | undefined;
  constructor(
    fields: {
      /** Overrides the derived code, for failures the client itself recognises. */
      code?: string;
      status?: number;
      apiCode?: string;
      path: string;
      retryable: boolean;
      message: string;
      retryAfterMs?: number;
    },
    options?: { cause?: unknown },
  ) {
    super(
      fields.code ?? `CLOUDFORET_${fields.apiCode ?? (fields.status ? `HTTP_${fields.status}` : 'NETWORK')}`,
      fields.message,
      options,
    );
    this.status = fields.status;
    this.apiCode = fields.apiCode;
    this.path = fields.path;
    this.retryable = fields.retryable;
    this.retryAfterMs = fields.retryAfterMs;
  }
}

/** The data changed under a paging run (total_count moved, or an id came twice): redo the whole unit. */
export class PagingDriftError extends ExportError {
  readonly retryable = true;
  constructor(message: string) {
    super('PAGING_DRIFT', message);
  }
}

export class SecretError extends ExportError {}
export class ConfigError extends ExportError {}
export class EventError extends ExportError {}
export class SinkError extends ExportError {}

/**
 * A listing answered empty where something is published, and nothing proves the period empty
 * (another verb counts rows in it, or there are no figures to ask): the object is kept and the
 * unit fails. Retryable when another verb contradicts the empty answer: it may pass.
 */
export class UnprovenRemovalError extends ExportError {
  constructor(
    code: 'EMPTY_ANSWER_CONTRADICTED' | 'REMOVAL_UNPROVEN',
    message: string,
    readonly retryable = code === 'EMPTY_ANSWER_CONTRADICTED',
  ) {
    super(code, message);
  }
}

/** Whether redoing the unit may help: any of our errors that says so (`retryable: true`). */
export function isRetryable(error: unknown): boolean {
  return error instanceof ExportError && (error as { retryable?: unknown }).retryable === true;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function errorCode(error: unknown): string {
  return error instanceof ExportError ? error.code : 'UNEXPECTED';
}

/**
 * Some units or tables of a run did not export. Its own name, because the name is what the Lambda
 * console (errorType) and Step Functions (Error) show: a plain ExportError would hide the code.
 */
export class RunFailedError extends ExportError {
  constructor(message: string) {
    super('RUN_FAILED', message);
  }
}

/** A backfill unit failed for good (bad request, auth, permission): Step Functions does not retry it. */
export class UnitFailedError extends ExportError {}
/** A backfill unit failed for a transient reason after its own retries: Step Functions retries it later. */
export class UnitRetryableError extends ExportError {}
