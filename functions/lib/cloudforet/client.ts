// Cloudforet HTTP API client: one POST route per verb, typed errors, bounded retries.
// Retry policy lives here and only here; callers never retry a single request themselves.
import { Agent, type Dispatcher, request } from 'undici';
import { type BodyBytes, readBody } from './body-bytes.ts';
import { CloudforetApiError } from '../errors.ts';
import { type Logger, silentLogger } from '../log.ts';
import { explainStatus, networkError, normalizeEndpoint, parseDetail } from './explain.ts';

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
  readonly headersTimeoutMs?: number;
  readonly bodyTimeoutMs?: number;
  readonly retry?: Partial<RetryPolicy>;
  readonly log?: Logger;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly random?: () => number;
}

/** Per-request options: an abort signal ends the request and any retry of it at once. */
export interface CallOptions {
  readonly signal?: AbortSignal;
}

/** An answer that came whole and is not parsed yet; read() parses it, once. */
export interface PendingAnswer<T> {
  read(): Promise<T>;
}

export const defaultRetry: RetryPolicy = { attempts: 5, baseDelayMs: 250, maxDelayMs: 10_000 };

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
  /** Requests that were retried; for summaries and the soak. */
  retries = 0;

  constructor(opts: CloudforetClientOptions) {
    this.endpoint = normalizeEndpoint(opts.endpoint);
    this.opts = opts;
    this.retry = { ...defaultRetry, ...opts.retry };
    this.log = opts.log ?? silentLogger;
    this.log.addSecret(opts.token);
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
    return this.receiveFrom<T>(path, body, 1, opts.signal);
  }

  private async receiveFrom<T>(
    path: string,
    body: Record<string, unknown>,
    first: number,
    signal: AbortSignal | undefined,
  ): Promise<PendingAnswer<T>> {
    for (let attempt = first; ; attempt++) {
      try {
        signal?.throwIfAborted();
        const bytes = await this.callOnce(path, body, signal);
        return { read: () => this.read<T>(path, body, bytes, attempt, signal) };
      } catch (error) {
        await this.beforeRetry(path, attempt, error, signal);
      }
    }
  }

  private async read<T>(
    path: string,
    body: Record<string, unknown>,
    bytes: BodyBytes,
    attempt: number,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    try {
      return parseSuccess(path, bytes.text()) as T;
    } catch (error) {
      await this.beforeRetry(path, attempt, error, signal);
      return (await this.receiveFrom<T>(path, body, attempt + 1, signal)).read();
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
    const delay = this.backoff(attempt, error.retryAfterMs);
    this.retries++;
    this.log.warn('cloudforet request retried', { path, attempt, delayMs: delay, code: error.code });
    await (this.opts.sleep ?? sleep)(delay, signal);
    if (signal?.aborted) throw abortedError(path, signal);
  }

  /** One request; a success's body comes back as bytes, anything else as a typed error. */
  private async callOnce(
    path: string,
    body: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<BodyBytes> {
    let response: Dispatcher.ResponseData;
    try {
      response = await request(`${this.endpoint}${path}`, {
        method: 'POST',
        dispatcher: this.opts.dispatcher,
        signal,
        headers: { authorization: `Bearer ${this.opts.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        headersTimeout: this.opts.headersTimeoutMs ?? 60_000,
        bodyTimeout: this.opts.bodyTimeoutMs ?? 60_000,
      });
    } catch (error) {
      throw networkError(path, error, this.opts.headersTimeoutMs ?? 60_000);
    }
    let bytes: BodyBytes;
    try {
      bytes = await readBody(response.body, response.headers['content-length']);
    } catch (error) {
      throw networkError(path, error, this.opts.bodyTimeoutMs ?? 60_000);
    }
    if (response.statusCode >= 200 && response.statusCode < 300) return bytes;
    throw this.httpError(path, response.statusCode, bytes.text(), response.headers['retry-after']);
  }

  private httpError(path: string, status: number, text: string, retryAfter: unknown): CloudforetApiError {
    const detail = parseDetail(text);
    const retryable = status >= 500 || status === 429;
    return new CloudforetApiError({
      status,
      apiCode: detail.code,
      path,
      retryable,
      message: explainStatus(status, detail, {
        path,
        endpoint: this.endpoint,
        source: this.opts.credentialSource,
      }),
      retryAfterMs: typeof retryAfter === 'string' ? parseRetryAfter(retryAfter) : undefined,
    });
  }

  private backoff(attempt: number, hintMs: number | undefined): number {
    const cap = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
    const jittered = Math.round(cap / 2 + ((this.opts.random ?? Math.random)() * cap) / 2);
    return hintMs === undefined ? jittered : Math.min(this.retry.maxDelayMs, Math.max(hintMs, jittered));
  }
}

function parseSuccess(path: string, text: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // A 200 that is not JSON is a proxy page or a cut connection: transient as far as we can tell.
    throw new CloudforetApiError(
      {
        status: 200,
        path,
        retryable: true,
        message:
          `cloudforet: ${path} answered 200 with a body that is not JSON (${text.length} bytes, starts '${text.slice(0, 40).replace(/\s+/g, ' ')}'): ` +
          "check that the endpoint is Cloudforet's HTTP API (the console's CONSOLE_API_V2.ENDPOINT), not the console's web address",
      },
      { cause: error },
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new CloudforetApiError({
      status: 200,
      path,
      retryable: true,
      message: `cloudforet: ${path} answered 200 with JSON that is not an object`,
    });
  }
  return parsed;
}

function parseRetryAfter(value: string): number | undefined {
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
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

/** The request was abandoned by its caller (its unit ended); never retried. */
function abortedError(path: string, signal: AbortSignal): CloudforetApiError {
  return new CloudforetApiError(
    { path, retryable: false, message: `cloudforet: ${path} abandoned: its unit ended` },
    { cause: signal.reason },
  );
}
