// One attempt of one Cloudforet request: the POST under a whole-request deadline, the answer read
// within its size cap, and an error answer turned into a typed error that says what to do. The
// client (client.ts) decides whether to try again; nothing here retries.
import { type Dispatcher, request } from 'undici';
import { CloudforetApiError } from '../errors.ts';
import { type BodyBytes, BodyTooLargeError, readBody } from './body-bytes.ts';
import {
  answerTooLargeError,
  DOMAIN_UNKNOWN,
  deadlineError,
  explainStatus,
  networkError,
  parseDetail,
} from './explain.ts';
import type { SilenceBudget } from './silence.ts';

/** What every attempt of a client needs: where, with which token, within which bounds. */
export interface AttemptSettings {
  /** Normalized: no trailing slash. */
  readonly endpoint: string;
  readonly token: string;
  readonly dispatcher: Dispatcher;
  readonly deadlineMs: number;
  readonly headersTimeoutMs?: number | undefined;
  readonly bodyTimeoutMs?: number | undefined;
  readonly maxAnswerBytes: number;
  /** Told when a request starts, is answered and ends: how long the endpoint has said nothing. */
  readonly waiting: SilenceBudget;
  readonly credentialSource?: string | undefined;
  /** The token's domain (its did claim): an answer that this domain is not found names it so. */
  readonly credentialDomainId?: string | undefined;
}

/** A 2xx answer's status and body, not parsed yet. */
export interface Success {
  readonly status: number;
  readonly bytes: BodyBytes;
}

/** undici's own limits sit this far behind the deadline unless set: the deadline speaks first. */
const BACKSTOP_MS = 1_000;

/**
 * One attempt, bounded as a whole by the deadline and in size by maxAnswerBytes; a success's
 * body comes back as bytes, anything else as a typed error. The caller's abort is not ours to
 * explain: the client sees it and says the request was abandoned.
 */
export async function attemptOnce(
  at: AttemptSettings,
  path: string,
  body: Record<string, unknown>,
  signal: AbortSignal | undefined,
): Promise<Success> {
  const deadline = AbortSignal.timeout(at.deadlineMs);
  const failure = (error: unknown, timeoutMs: number | undefined) =>
    deadline.aborted && !signal?.aborted
      ? deadlineError(path, at.deadlineMs, error)
      : networkError(path, error, timeoutMs ?? at.deadlineMs);
  let response: Dispatcher.ResponseData;
  at.waiting.asking();
  try {
    response = await request(`${at.endpoint}${path}`, {
      method: 'POST',
      dispatcher: at.dispatcher,
      signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
      headers: { authorization: `Bearer ${at.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      headersTimeout: at.headersTimeoutMs ?? at.deadlineMs + BACKSTOP_MS,
      bodyTimeout: at.bodyTimeoutMs ?? at.deadlineMs + BACKSTOP_MS,
    });
  } catch (error) {
    throw failure(error, at.headersTimeoutMs);
  } finally {
    at.waiting.settled();
  }
  at.waiting.heard();
  let bytes: BodyBytes;
  try {
    bytes = await readBody(response.body, response.headers['content-length'], at.maxAnswerBytes);
  } catch (error) {
    response.body.destroy(); // the rest of an answer too large is never read; the socket goes
    if (!(error instanceof BodyTooLargeError)) throw failure(error, at.bodyTimeoutMs);
    throw answerTooLargeError(path, at.maxAnswerBytes, error.declared, error);
  }
  const status = response.statusCode;
  if (status >= 200 && status < 300) return { status, bytes };
  throw httpError(at, path, status, bytes.text(), response.headers);
}

function httpError(
  at: AttemptSettings,
  path: string,
  status: number,
  text: string,
  headers: Dispatcher.ResponseData['headers'],
): CloudforetApiError {
  const location = headers.location;
  const detail = { ...parseDetail(text), location: typeof location === 'string' ? location : undefined };
  const unknownDomain = namesUnknownDomain(detail, at.credentialDomainId);
  const retryAfter = headers['retry-after'];
  const retryable = unknownDomain === undefined && (status >= 500 || status === 429);
  return new CloudforetApiError({
    status,
    apiCode: detail.code,
    ...(unknownDomain !== undefined && { code: DOMAIN_UNKNOWN }),
    path,
    retryable,
    message: explainStatus(status, detail, {
      path,
      endpoint: at.endpoint,
      source: at.credentialSource,
      unknownDomain,
    }),
    retryAfterMs: typeof retryAfter === 'string' ? parseRetryAfter(retryAfter) : undefined,
  });
}

/**
 * Cloudforet looks up the public key of the domain a token names before it checks the token; for
 * a domain it does not have, that lookup's ERROR_NOT_FOUND (domain_id = …) is the answer to the
 * request itself (python-core's authentication handler; identity's DomainSecret), not a 401.
 */
function namesUnknownDomain(detail: { code?: string; message?: string }, domainId: string | undefined) {
  if (domainId === undefined || detail.code !== 'ERROR_NOT_FOUND') return undefined;
  return detail.message?.includes(`(domain_id = ${domainId})`) ? domainId : undefined;
}

function parseRetryAfter(value: string): number | undefined {
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
