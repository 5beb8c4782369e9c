// Injected failures, consumed in the order they were injected: for each request the first
// fault whose path matches decides, after letting its `afterRequests` requests through.
import { type EchoEncoding, encodeEcho } from './secret-echo.ts';

export type FaultKind =
  | '503'
  | '500'
  | '504'
  | 'reset'
  | 'slow'
  | 'badjson'
  | 'truncated'
  | 'empty'
  | 'detail'
  | 'null-results'
  | '401'
  | '403'
  | '429';

export interface Fault {
  path?: string | RegExp;
  kind: FaultKind;
  times?: number;
  afterRequests?: number;
  delayMs?: number;
  /** The answer's detail message echoes the request's bearer token, so encoded (JSON kinds). */
  echo?: EchoEncoding;
}

interface PendingFault {
  readonly matches: (path: string) => boolean;
  readonly kind: FaultKind;
  readonly delayMs: number;
  readonly echo: EchoEncoding | undefined;
  times: number;
  skip: number;
}

export function pathMatcher(path: string | RegExp | undefined): (path: string) => boolean {
  if (path === undefined) return () => true;
  if (typeof path === 'string') return (p) => p === path;
  return (p) => {
    path.lastIndex = 0;
    return path.test(p);
  };
}

export class FaultQueue {
  private readonly pending: PendingFault[] = [];

  add(fault: Fault): void {
    this.pending.push({
      matches: pathMatcher(fault.path),
      kind: fault.kind,
      delayMs: fault.delayMs ?? 5000,
      echo: fault.echo,
      times: fault.times ?? 1,
      skip: fault.afterRequests ?? 0,
    });
  }

  /** Faults not yet wholly consumed. */
  get size(): number {
    return this.pending.length;
  }

  /** Drops every fault not yet consumed. */
  clear(): void {
    this.pending.length = 0;
  }

  /** The fault to apply to a request for `path`, if any. */
  take(path: string): TakenFault | undefined {
    const index = this.pending.findIndex((f) => f.matches(path));
    const fault = this.pending[index];
    if (!fault) return undefined;
    if (fault.skip > 0) {
      fault.skip--;
      return undefined;
    }
    fault.times--;
    if (fault.times <= 0) this.pending.splice(index, 1);
    return { kind: fault.kind, delayMs: fault.delayMs, echo: fault.echo };
  }
}

export interface TakenFault {
  readonly kind: FaultKind;
  readonly delayMs: number;
  readonly echo?: EchoEncoding | undefined;
}

/** The fault's answer, its detail message echoing the request's token when the fault says so. */
export function echoingFaultAnswer(
  fault: TakenFault,
  authorization: string | undefined,
): FaultAnswer | undefined {
  const answer = faultAnswer(fault.kind);
  if (!answer || fault.echo === undefined || answer.contentType !== 'application/json') return answer;
  const token = (authorization ?? '').replace(/^Bearer\s+/i, '');
  const body = JSON.parse(answer.body) as { detail?: { code?: string; message?: string } };
  const said = `${body.detail?.message ?? ''} (request = {"token": "${encodeEcho(token, fault.echo)}"})`;
  return { ...answer, body: JSON.stringify({ detail: { ...body.detail, message: said } }) };
}

const HTML_504 =
  '<html><head><title>504 Gateway Time-out</title></head><body><center><h1>504 Gateway Time-out</h1></center></body></html>\n';
const HTML_PAGE =
  '<!DOCTYPE html><html><head><title>Maintenance</title></head><body><h1>We will be back soon</h1></body></html>\n';

export interface FaultAnswer {
  readonly status: number;
  readonly body: string;
  readonly contentType: string;
  readonly headers?: Record<string, string>;
}

const detail = (code: string, message: string) =>
  JSON.stringify({ detail: { code, message: ` ${message}` } });

/**
 * What a status-like fault answers; undefined for the kinds that change how the real answer is
 * delivered (reset, slow, truncated).
 */
export function faultAnswer(kind: FaultKind): FaultAnswer | undefined {
  const json = 'application/json';
  switch (kind) {
    case '503':
      return {
        status: 503,
        contentType: json,
        body: detail(
          'ERROR_GRPC_CONNECTION',
          'Server is unavailable. (channel = cost-analysis:50051, message = failed to connect to all addresses)',
        ),
      };
    case '500':
      return {
        status: 500,
        contentType: json,
        body: detail('ERROR_DB_QUERY', 'Database query failed. (reason = connection pool exhausted)'),
      };
    case '504':
      return { status: 504, contentType: 'text/html', body: HTML_504 };
    case '401':
      return {
        status: 401,
        contentType: json,
        body: detail('ERROR_AUTHENTICATE_FAILURE', 'Authenticate failure. (message = Token is expired.)'),
      };
    case '403':
      return {
        status: 403,
        contentType: json,
        body: detail('ERROR_PERMISSION_DENIED', 'Permission denied.'),
      };
    case '429':
      return {
        status: 429,
        contentType: json,
        body: JSON.stringify({ message: 'Too Many Requests' }),
        headers: { 'retry-after': '1' },
      };
    case 'badjson':
      return { status: 200, contentType: 'text/html', body: HTML_PAGE };
    case 'empty':
      return { status: 200, contentType: json, body: '{}' };
    // What a gateway in front of the API may answer with a 200: no answer of any verb.
    case 'detail':
      return { status: 200, contentType: json, body: JSON.stringify({ detail: 'upstream connect error' }) };
    case 'null-results':
      return { status: 200, contentType: json, body: JSON.stringify({ results: null, total_count: 0 }) };
    default:
      return undefined;
  }
}
