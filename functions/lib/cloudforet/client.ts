// Cloudforet HTTP API client: one POST route per verb, typed errors, bounded retries.
// Retry policy lives here and only here; callers never retry a single request themselves.
import { Agent, type Dispatcher } from 'undici';
import { CloudforetApiError } from '../errors.ts';
import { type Logger, silentLogger } from '../log.ts';
import { registerSecret } from '../redact/redact.ts';
import { type AttemptSettings, attemptOnce, type Success } from './attempt.ts';
import { abortedError, isNoAnswer, normalizeEndpoint } from './explain.ts';
import { type AnswerCheck, parseAnswer } from './parse-answer.ts';
import { SilenceBudget } from './silence.ts';

export interface RetryPolicy {
  /** Total attempts per request, the first included. */
  readonly attempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export interface CloudforetClientOptions {
  /** Base URL of the HTTP API, e.g. https://console-v2.api.example.com */
  readonly endpoint: string;
  readonly token: string;
  readonly dispatcher: Dispatcher;
  /** Named in error messages (e.g. "secret 'cloudforet/app'"); never the token itself. */
  readonly credentialSource?: string;
  /** The token's domain (its did claim): an answer that this domain is not found names it so. */
  readonly credentialDomainId?: string;
  /** The deadline of one attempt, headers and body together (default 60 s). */
  readonly requestTimeoutMs?: number;
  /** Finer limits on the wait for headers and between body chunks; the deadline covers both. */
  readonly headersTimeoutMs?: number;
  readonly bodyTimeoutMs?: number;
  /** Longest answer body taken (default 64 MiB): checked against content-length, then as it comes. */
  readonly maxAnswerBytes?: number;
  readonly retry?: Partial<RetryPolicy>;
  /** false: a request that got no answer in time is not retried (a probe, as `check` sends). */
  readonly retryNoAnswer?: boolean;
  /** Bounds the retries of requests that got no answer by the time nothing was heard at all. */
  readonly silence?: SilenceBudget;
  readonly log?: Logger;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly random?: () => number;
  /** Aborts every request of this client and its retries, whatever the caller passed (the CLI's Ctrl-C). */
  readonly signal?: AbortSignal;
}

/** Per-request options: an abort signal ends the request and any retry of it at once. */
export interface CallOptions {
  readonly signal?: AbortSignal;
  /** What this verb's answer must hold; an answer that fails it is retried as a 5xx would be. */
  readonly check?: AnswerCheck;
}

/** An answer that came whole and is not parsed yet; read() parses it, once. */
export interface PendingAnswer<T> {
  read(): Promise<T>;
  /** A guess at the last value of a key, from the bytes before read() (BodyBytes.peek). */
  peek(key: string): string | number | undefined;
}

export const defaultRetry: RetryPolicy = { attempts: 5, baseDelayMs: 250, maxDelayMs: 10_000 };
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** A pooled keep-alive dispatcher with explicit timeouts, well under a Lambda timeout. */
export function createDispatcher(opts: { connectTimeoutMs?: number; connections?: number } = {}): Agent {
  return new Agent({
    connect: { timeout: opts.connectTimeoutMs ?? 10_000 },
    connections: opts.connections ?? 16,
    keepAliveTimeout: 30_000,
  });
}

export class CloudforetClient {
  readonly endpoint: string;
  private readonly opts: CloudforetClientOptions;
  private readonly retry: RetryPolicy;
  private readonly log: Logger;
  private readonly deadlineMs: number;
  /** What each attempt needs: where, with what, within which bounds. */
  private readonly attempt: AttemptSettings;
  /** The run's bound on an endpoint that answers nothing, if it has one. */
  get silence(): SilenceBudget | undefined {
    return this.opts.silence;
  }

  /**
   * How long this client's requests have waited with no answer (the run's silence budget, or an
   * unbounded one of its own): the CLI says it waits. Only `silence` bounds the retries.
   */
  readonly waiting: SilenceBudget;

  /** Each attempt's deadline, headers and body together. */
  get requestTimeoutMs(): number {
    return this.deadlineMs;
  }

  /** Requests that were retried; for summaries and the soak. */
  retries = 0;

  constructor(opts: CloudforetClientOptions) {
    this.endpoint = normalizeEndpoint(opts.endpoint);
    this.opts = opts;
    this.retry = { ...defaultRetry, ...opts.retry };
    this.log = opts.log ?? silentLogger;
    registerSecret(opts.token);
    this.deadlineMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.waiting = opts.silence ?? new SilenceBudget(Number.POSITIVE_INFINITY);
    this.attempt = {
      endpoint: this.endpoint,
      token: opts.token,
      dispatcher: opts.dispatcher,
      headersTimeoutMs: opts.headersTimeoutMs,
      bodyTimeoutMs: opts.bodyTimeoutMs,
      credentialSource: opts.credentialSource,
      credentialDomainId: opts.credentialDomainId,
      deadlineMs: this.deadlineMs,
      maxAnswerBytes: opts.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES,
      waiting: this.waiting,
    };
  }

  /** POST one verb, e.g. call('/cost-analysis/cost/list', {...}), retrying transient failures. */
  async call<T = Record<string, unknown>>(
    path: string,
    body: Record<string, unknown>,
    opts: CallOptions = {},
  ): Promise<T> {
    return (await this.receive<T>(path, body, opts)).read();
  }

  /**
   * POST one verb and keep the answer as the bytes that came, off the V8 heap, until read() parses
   * it: a page asked ahead then waits as bytes in a reused buffer, not as thousands of objects that
   * would outlive two scavenges and be promoted to the old generation only to die there.
   * A body that turns out not to be JSON when read is retried as call() would, with the attempts left.
   */
  receive<T = Record<string, unknown>>(
    path: string,
    body: Record<string, unknown>,
    opts: CallOptions = {},
  ): Promise<PendingAnswer<T>> {
    return this.receiveFrom<T>(path, body, 1, opts);
  }

  private async receiveFrom<T>(
    path: string,
    body: Record<string, unknown>,
    first: number,
    opts: CallOptions,
  ): Promise<PendingAnswer<T>> {
    const own = this.opts.signal;
    if (own) opts = { ...opts, signal: opts.signal ? AbortSignal.any([own, opts.signal]) : own };
    for (let attempt = first; ; attempt++) {
      try {
        opts.signal?.throwIfAborted();
        const success = await attemptOnce(this.attempt, path, body, opts.signal);
        return {
          read: () => this.read<T>(path, body, success, attempt, opts),
          peek: (key) => success.bytes.peek(key),
        };
      } catch (error) {
        await this.beforeRetry(path, attempt, error, opts.signal);
      }
    }
  }

  private async read<T>(
    path: string,
    body: Record<string, unknown>,
    success: Success,
    attempt: number,
    opts: CallOptions,
  ): Promise<T> {
    try {
      return parseAnswer(path, success.status, success.bytes, opts.check) as T;
    } catch (error) {
      await this.beforeRetry(path, attempt, error, opts.signal);
      return (await this.receiveFrom<T>(path, body, attempt + 1, opts)).read();
    }
  }

  /**
   * Waits out the backoff when the failure may pass, attempts are left and nobody aborted the
   * request; throws otherwise. An abort during the wait ends it at once: no retry starts after.
   */
  private async beforeRetry(
    path: string,
    attempt: number,
    error: unknown,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    if (signal?.aborted) throw abortedError(path, signal);
    if (!(error instanceof CloudforetApiError) || !error.retryable || attempt >= this.retry.attempts) {
      throw error;
    }
    if (isNoAnswer(error)) this.mayRetryNoAnswer(error, attempt);
    const delay = this.backoff(attempt, error.retryAfterMs);
    this.retries++;
    this.log.warn('cloudforet request retried', { path, attempt, delayMs: delay, code: error.code });
    await (this.opts.sleep ?? sleep)(delay, signal);
    if (signal?.aborted) throw abortedError(path, signal);
  }

  /** Throws when a request that got no answer must not be tried again. */
  private mayRetryNoAnswer(error: CloudforetApiError, attempt: number): void {
    if (this.opts.retryNoAnswer === false) throw error;
    const silence = this.opts.silence;
    if (silence && !silence.allowsAttempt()) {
      throw silence.exhausted(error, this.endpoint, attempt, this.deadlineMs);
    }
  }

  private backoff(attempt: number, hintMs: number | undefined): number {
    const cap = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
    const jittered = Math.round(cap / 2 + ((this.opts.random ?? Math.random)() * cap) / 2);
    return hintMs === undefined ? jittered : Math.min(this.retry.maxDelayMs, Math.max(hintMs, jittered));
  }
}

/** Resolves after ms, or at once when the signal aborts (the caller then throws). */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
