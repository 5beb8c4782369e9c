// Whether an endpoint knows a domain: identity's get-public-key answers without a token, with the
// domain's key or ERROR_NOT_FOUND. Asked after a 401, so that an app of another Cloudforet or
// another domain is named as such, not as a secret that is invalid or expired.
import { type Dispatcher, request } from 'undici';
import { readBody } from './body-bytes.ts';
import { parseDetail } from './explain.ts';

export const DOMAIN_PROBE_PATH = '/identity/domain/get-public-key';
/** The key and its domain id: a few KiB. Anything longer is not that answer. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** True only when the endpoint says it has no such domain; any other answer, or none, is false. */
export async function domainUnknownTo(
  endpoint: string,
  domainId: string,
  dispatcher: Dispatcher,
  timeoutMs: number,
): Promise<boolean> {
  try {
    const response = await request(`${endpoint}${DOMAIN_PROBE_PATH}`, {
      method: 'POST',
      dispatcher,
      signal: AbortSignal.timeout(timeoutMs),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ domain_id: domainId }),
    });
    const bytes = await readBody(response.body, response.headers['content-length'], MAX_ANSWER_BYTES);
    return response.statusCode >= 400 && parseDetail(bytes.text()).code === 'ERROR_NOT_FOUND';
  } catch {
    return false;
  }
}
