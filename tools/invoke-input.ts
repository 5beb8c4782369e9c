// What npm run invoke reads before it starts anything: the event file and the --env pairs, each
// refused in one line that says what to give, so a bad input never starts (or strands) a server.

/** The event in `file` ('-': stdin): JSON, a UTF-8 byte order mark allowed, and an object. */
export async function readEvent(file: string, read: (file: string) => Promise<string>): Promise<object> {
  const text = await read(file).catch(() => undefined);
  if (text === undefined) throw new InvokeInputError(`cannot read the event file '${file}'`);
  let event: unknown;
  try {
    // Editors on Windows save JSON with a byte order mark; JSON.parse refuses it.
    event = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    throw new InvokeInputError(`the event file '${file}' is not JSON`);
  }
  if (event === null || typeof event !== 'object' || Array.isArray(event)) {
    const what = event === null ? 'null' : Array.isArray(event) ? 'an array' : `a ${typeof event}`;
    throw new InvokeInputError(
      `the event in '${file}' is ${what}: an event is a JSON object, {} for the function's default (events/ holds examples)`,
    );
  }
  return event;
}

/** `--env NAME=VALUE` pairs as variables; a pair without '=' or without a name is refused. */
export function parseEnvPairs(pairs: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) {
      const name = at < 0 ? pair : '';
      throw new InvokeInputError(
        name === ''
          ? `--env '${pair}' names no variable: give NAME=VALUE, e.g. --env LOG_LEVEL=debug`
          : `--env ${name} has no value: give NAME=VALUE, e.g. --env ${name}=${name === 'LOG_LEVEL' ? 'debug' : 'VALUE'}`,
      );
    }
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return env;
}

export class InvokeInputError extends Error {
  override readonly name = 'InvokeInputError';
}
