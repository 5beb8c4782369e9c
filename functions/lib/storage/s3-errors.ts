// What an S3 failure was (the SDK's error name and message, or the system error under it) and
// what to do about it. A bare "Error" helps nobody: the SDK's real cause is often one level down.

export interface S3Cause {
  readonly cause: string;
  readonly remedy: string | undefined;
}

const REMEDIES: Readonly<Record<string, (bucket: string) => string>> = {
  AccessDenied: () =>
    'the role or user needs s3:PutObject, s3:GetObject, s3:DeleteObject and s3:ListBucket under this prefix',
  NoSuchBucket: (b) => `bucket '${b}' does not exist in this account and region: check --out and AWS_REGION`,
  PermanentRedirect: (b) => `bucket '${b}' is in another region: set AWS_REGION to the bucket's region`,
  AuthorizationHeaderMalformed: () =>
    "the region is wrong for this bucket: set AWS_REGION to the bucket's region",
  InvalidAccessKeyId: () => 'the access key is unknown: check AWS_PROFILE or AWS_ACCESS_KEY_ID',
  SignatureDoesNotMatch: () =>
    'the secret access key does not match: check AWS_PROFILE or AWS_SECRET_ACCESS_KEY',
  ExpiredToken: () => 'the session credentials expired: renew them (aws sso login, or a new session)',
  CredentialsProviderError: () =>
    'no AWS credentials were found: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or run with a role',
  ECONNREFUSED: () => 'nothing answers at the S3 endpoint: check AWS_ENDPOINT_URL_S3 or the network',
  ENOTFOUND: () => 'the S3 endpoint name does not resolve: check AWS_ENDPOINT_URL_S3, AWS_REGION and DNS',
  ETIMEDOUT: () => 'the S3 endpoint did not answer in time: check the network (VPC endpoint, proxy)',
  ECONNRESET: () => 'the connection to S3 was cut: retry; check the network if it persists',
};

/** The SDK's "Region is missing" names no variable. */
export const NO_REGION =
  "no AWS region is set: set AWS_REGION to the bucket's region (e.g. AWS_REGION=us-east-1), or a region in the AWS profile";

export function s3Cause(error: unknown, bucket: string): S3Cause {
  const chain = causeChain(error);
  const named = chain.map(nameOf).find((n) => n !== undefined && REMEDIES[n] !== undefined);
  const top = chain[0] as { name?: string; message?: string } | undefined;
  const deepest = chain.at(-1) as { message?: string } | undefined;
  const name = nameOf(top) ?? 'Error';
  const message = deepest?.message || top?.message || '';
  const cause = message && message !== name ? `${name} (${message})` : name;
  if (/Region is missing/i.test(message)) return { cause, remedy: NO_REGION };
  return { cause, remedy: named ? REMEDIES[named]?.(bucket) : undefined };
}

function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (
    let e = error;
    e !== undefined && e !== null && chain.length < 5;
    e = (e as { cause?: unknown }).cause
  ) {
    chain.push(e);
    // AggregateError (a dual-stack connect) keeps the system errors in `errors`.
    const inner = (e as { errors?: unknown[] }).errors;
    if (Array.isArray(inner) && inner.length > 0 && (e as { cause?: unknown }).cause === undefined) {
      chain.push(inner[0]);
      break;
    }
  }
  return chain;
}

/** The system error code (ECONNREFUSED) when there is one, otherwise the error's name. */
function nameOf(e: unknown): string | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  const { code, name } = e as { code?: unknown; name?: unknown };
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  return typeof name === 'string' && name !== 'Error' ? name : typeof code === 'string' ? code : undefined;
}
