// What a failed Cloudforet request means and what to do about it. Mistakes in the endpoint
// (wrong scheme, host, port, path, or TLS to a plain-HTTP server) fail at once: no retry fixes them.
import { CloudforetApiError } from '../errors.ts';

const API_BASE_HINT =
  "give the HTTP API base, e.g. https://console-v2.api.example.com (the console's CONSOLE_API_V2.ENDPOINT)";

/** The endpoint as a base URL without a trailing slash; anything but http(s) is refused. */
export function normalizeEndpoint(endpoint: string): string {
  let url: URL | undefined;
  try {
    url = new URL(endpoint);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.hostname === '') {
    throw new CloudforetApiError({
      path: '',
      retryable: false,
      message: `cloudforet: endpoint '${endpoint}' is not an http(s) URL: ${API_BASE_HINT}`,
    });
  }
  const extra = endpointExtraProblem(url);
  if (extra) throw new CloudforetApiError({ path: '', retryable: false, message: `cloudforet: ${extra}` });
  return url.toString().replace(/\/+$/, '');
}

/**
 * A query string or fragment cannot be part of an API base: every verb's path is appended to
 * the base, so `?x=1` would swallow it and the request would go to the base itself.
 */
export function endpointExtraProblem(url: URL): string | undefined {
  if (url.search === '' && url.hash === '') return undefined;
  const part = url.search !== '' ? `a query string (${url.search})` : `a fragment (${url.hash})`;
  return `endpoint '${url.href}' has ${part}: ${API_BASE_HINT}, with nothing after it`;
}

/** What an error answer's body says: Cloudforet's detail, or the title of an HTML page. */
export interface AnswerDetail {
  readonly code?: string | undefined;
  readonly message?: string | undefined;
  /** The <title> of an HTML page (a proxy's or a web server's), or 'an HTML page' without one. */
  readonly page?: string | undefined;
  /** Where a redirect points. */
  readonly location?: string | undefined;
}

export function parseDetail(text: string): AnswerDetail {
  if (/^\s*</.test(text)) return { page: htmlTitle(text) };
  try {
    const parsed = JSON.parse(text) as { detail?: unknown };
    if (parsed && typeof parsed.detail === 'object' && parsed.detail !== null) {
      const d = parsed.detail as { code?: unknown; message?: unknown };
      return {
        code: typeof d.code === 'string' ? d.code : undefined,
        message: typeof d.message === 'string' ? d.message.trim() : undefined,
      };
    }
    if (parsed && typeof parsed.detail === 'string') return { message: parsed.detail };
  } catch {
    // not JSON: an HTML error page from a proxy; the status says enough
  }
  return {};
}

function htmlTitle(text: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text.slice(0, 4096))?.[1]?.replace(/\s+/g, ' ').trim();
  return title ? `an HTML page titled '${title.slice(0, 80)}'` : 'an HTML page';
}

export function explainStatus(
  status: number,
  detail: AnswerDetail,
  at: { path: string; endpoint: string; source?: string | undefined; unknownDomain?: string | undefined },
): string {
  const head = `cloudforet: ${status}${detail.code ? ` ${detail.code}` : ''} for ${at.path}`;
  const said = detail.message ? ` (${detail.message})` : '';
  const credential = at.source ?? 'the configured client_secret';
  if (status >= 300 && status < 400) {
    return `${head} — ${at.endpoint} redirects${detail.location ? ` to ${detail.location}` : ''}: the API answers POSTs without redirecting, so this is probably the console web address or http:// for https://: ${API_BASE_HINT}`;
  }
  if (detail.page !== undefined) return `${head} — ${pageAnswer(status, detail.page, at.endpoint)}`;
  if (at.unknownDomain !== undefined)
    return `${head} — the client_secret in ${credential} is of domain ${at.unknownDomain}, which ${at.endpoint} does not know: it is an app of another Cloudforet or another domain; use an app file of this endpoint's domain, or the endpoint of the Cloudforet that issued it${said}`;
  if (status >= 500) {
    return `${head} — the API failed on its side${said}: try again later; if it persists, ask the Cloudforet operator (the API's logs say why)`;
  }
  switch (status) {
    case 401:
      return `${head} — the client_secret in ${credential} is invalid or expired: create a new client secret for the app in Cloudforet and update ${credential}${said}`;
    case 403:
      return `${head} — the app's role cannot use this API: give the app a role with access (a DOMAIN_ADMIN app for a domain-wide export)${said}`;
    case 404:
      // Cloudforet's own 404 carries a code; the web framework's (no such route) does not.
      return detail.code
        ? `${head} — not found${said}: check the id (e.g. the data source id) exists in this domain`
        : `${head} — ${at.endpoint} has no such API route${said}: check the endpoint: ${API_BASE_HINT}, with no path after it`;
    case 400:
      return `${head} — the request was refused${said}`;
    default:
      return `${head}${said}`;
  }
}

/** An HTML page where JSON was due: a proxy's error page, or a web server that is not the API. */
function pageAnswer(status: number, page: string, endpoint: string): string {
  if (status >= 500) {
    return `${page} came from a proxy or gateway in front of the API, not from the API: the API behind it may be down or restarting; try again later, and check that ${endpoint} is the HTTP API base`;
  }
  return `${endpoint} answered with ${page}, not the API's JSON: ${API_BASE_HINT}`;
}

/** The request was abandoned by its caller (its unit ended); never retried. */
export function abortedError(path: string, signal: AbortSignal): CloudforetApiError {
  return new CloudforetApiError(
    { path, retryable: false, message: `cloudforet: ${path} abandoned: its unit ended` },
    { cause: signal.reason },
  );
}

export const DEADLINE = 'CLOUDFORET_DEADLINE';
export const DOMAIN_UNKNOWN = 'CLOUDFORET_DOMAIN_UNKNOWN';
export const ANSWER_TOO_LARGE = 'CLOUDFORET_ANSWER_TOO_LARGE';
const MiB = 1024 * 1024;

/** The whole request, headers and body, outlasted its deadline: a silent or trickling server. */
export function deadlineError(path: string, deadlineMs: number, cause: unknown): CloudforetApiError {
  return new CloudforetApiError(
    {
      code: DEADLINE,
      path,
      retryable: true,
      message:
        `cloudforet: no answer for ${path} within ${duration(deadlineMs)} (the deadline for the whole request, headers and body): ` +
        'the endpoint may be down, unreachable from here, or sending its answer too slowly; ' +
        'a slow API may need a longer timeout (--timeout or CLOUDFORET_TIMEOUT_MS; cloudforetTimeoutMs in the stack)',
    },
    { cause },
  );
}

/** An answer longer than the client takes; dropped unread past the limit. */
export function answerTooLargeError(
  path: string,
  maxBytes: number,
  declared: number | undefined,
  cause: unknown,
): CloudforetApiError {
  const came = declared === undefined ? 'more than that arrived' : `its content-length is ${declared} bytes`;
  return new CloudforetApiError(
    {
      code: ANSWER_TOO_LARGE,
      path,
      retryable: true,
      message:
        `cloudforet: the answer for ${path} exceeded ${mebibytes(maxBytes)} MiB (${came}) and was dropped: ` +
        'a page of 1000 rows is about 1 MiB, so check what the endpoint sends; if answers this large are expected, ' +
        'raise the limit (--max-answer-mb or CLOUDFORET_MAX_ANSWER_MB, 1-1024; cloudforetMaxAnswerMb in the stack)',
    },
    { cause },
  );
}

const duration = (ms: number) => (ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`);
const mebibytes = (bytes: number) => Math.round((bytes / MiB) * 100) / 100;

const TLS_MISMATCH = /^(ERR_SSL_|EPROTO$)/;
const CERTIFICATE =
  /^(CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(VERIFY|GET)_|ERR_TLS_CERT_ALTNAME_INVALID)/;

/** A request that got no answer; `timeoutMs` is the per-request limit that may have ended it. */
export function networkError(path: string, error: unknown, timeoutMs: number): CloudforetApiError {
  const code = errorCodeOf(error);
  const fatal = permanentCause(code);
  const message = fatal
    ? `cloudforet: cannot reach the endpoint for ${path}: ${fatal} (${code})`
    : noAnswerMessage(path, code, error, timeoutMs);
  return new CloudforetApiError({ path, retryable: fatal === undefined, message }, { cause: error });
}

function noAnswerMessage(path: string, code: string, error: unknown, timeoutMs: number): string {
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return `cloudforet: could not connect for ${path} (${code}): the host does not answer on that port (a firewall, or no route from here)`;
  }
  if (code.endsWith('_TIMEOUT')) {
    return (
      `cloudforet: no answer for ${path} within ${Math.round(timeoutMs / 1000)} s (${code}): the endpoint may be down or unreachable from here; ` +
      'a slow API may need a longer timeout (--timeout or CLOUDFORET_TIMEOUT_MS)'
    );
  }
  return `cloudforet: no answer for ${path}: ${code}: ${error instanceof Error ? error.message : String(error)}`;
}

/** The remedy for a failure that a retry cannot fix, or undefined for one that may pass. */
function permanentCause(code: string): string | undefined {
  if (code === 'ENOTFOUND') return "the host name does not resolve: check the endpoint's spelling";
  if (code === 'ECONNREFUSED')
    return "nothing listens on that host and port: check the endpoint's host and port";
  if (TLS_MISMATCH.test(code)) {
    return "the server does not speak TLS on that port (an http:// server asked with https://?): check the endpoint's scheme and port";
  }
  if (CERTIFICATE.test(code)) {
    return "the server's TLS certificate is not trusted for this host: check the host name, or give Node the CA with NODE_EXTRA_CA_CERTS";
  }
  if (code === 'UND_ERR_INVALID_ARG' || code === 'ERR_INVALID_URL')
    return `the endpoint is not a usable URL: ${API_BASE_HINT}`;
  return undefined;
}

/** The request got no answer in time (the deadline, or undici's connect, headers or body limit). */
export function isNoAnswer(error: CloudforetApiError): boolean {
  return error.code === DEADLINE || errorCodeOf(error.cause).endsWith('_TIMEOUT');
}

/** The code of a transport error; '' for none (an HTTP answer's error has no cause). */
function errorCodeOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return '';
  const e = error as { code?: unknown; name?: string; cause?: { code?: unknown } };
  if (typeof e.code === 'string') return e.code;
  if (typeof e.cause?.code === 'string') return e.cause.code;
  return e.name ?? 'Error';
}
