// The one rule for a Cloudforet endpoint's scheme, for the CLI and the Lambda alike: the token
// travels in every request's Authorization header, so plain http only to this machine.

/** 127.0.0.0/8, localhost and [::1]: a simulator or a tunnel on this machine. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Why `endpoint` (named `name` in the message) would send the token in clear text, or undefined. */
export function plainHttpProblem(name: string, endpoint: string): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return undefined;
  return `${name} '${endpoint}' is plain http: the token would cross the network in clear text; use https://`;
}
