// What a 2xx body must be to count as an answer. Cloudforet answers an empty list as `{}` (its JSON
// omits empty repeated fields); anything else that cannot be the verb's answer (a proxy's page, a
// gateway's error, `"results": null`) fails the request, retryably, as a 5xx would: an answer that
// never came must not be taken for an empty one.
import { CloudforetApiError } from '../errors.ts';

export const NOT_AN_ANSWER = 'CLOUDFORET_NOT_AN_ANSWER';

/** Top-level keys no Cloudforet verb answers with: an error reported by a proxy, gateway or framework. */
const ERROR_KEYS = ['detail', 'error', 'code'] as const;

/**
 * What a caller knows its verb must have sent, beyond what every verb must: a pager knows that
 * a total_count reaching its page's offset comes with results. Returns the problem, in words.
 */
export type AnswerCheck = (answer: Readonly<Record<string, unknown>>) => string | undefined;

/** An answer's body: parsed once; its length and first characters for messages. */
export interface AnswerBody {
  json(): unknown;
  readonly byteLength: number;
  readonly head: string;
}

export function parseAnswer(
  path: string,
  status: number,
  body: AnswerBody,
  check?: AnswerCheck,
): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = body.json();
  } catch (error) {
    // A proxy page or a cut connection: transient as far as we can tell.
    throw new CloudforetApiError(
      {
        code: NOT_AN_ANSWER,
        status,
        path,
        retryable: true,
        message:
          `cloudforet: ${path} answered ${status} with a body that is not JSON (${body.byteLength} bytes, starts '${start(body.head)}'): ` +
          "check that the endpoint is Cloudforet's HTTP API (the console's CONSOLE_API_V2.ENDPOINT), not the console's web address",
      },
      { cause: error },
    );
  }
  const problem = shapeProblem(parsed) ?? check?.(parsed as Record<string, unknown>);
  if (problem !== undefined) {
    throw new CloudforetApiError({
      code: NOT_AN_ANSWER,
      status,
      path,
      retryable: true,
      message:
        `cloudforet: ${path} answered ${status} with ${problem} (starts '${start(body.head)}'), which is no answer of this verb ` +
        '(an empty list is {}): check what stands between here and the API (a proxy or gateway reporting a failure as a success)',
    });
  }
  return parsed as Record<string, unknown>;
}

/** What every verb's answer must be: an object, no error keys, results a list, total_count a number. */
function shapeProblem(parsed: unknown): string | undefined {
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return `JSON that is not an object (${parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : `a ${typeof parsed}`})`;
  }
  const answer = parsed as Record<string, unknown>;
  const errorKeys = ERROR_KEYS.filter((key) => key in answer);
  if (errorKeys.length > 0) return `an error body (key ${errorKeys.join(', ')})`;
  if ('results' in answer && !Array.isArray(answer.results)) {
    return `"results": ${answer.results === null ? 'null' : typeof answer.results}, not a list`;
  }
  if ('total_count' in answer && typeof answer.total_count !== 'number') {
    return `"total_count": ${answer.total_count === null ? 'null' : typeof answer.total_count}, not a number`;
  }
  return undefined;
}

const start = (text: string) => text.slice(0, 40).replace(/\s+/g, ' ');
