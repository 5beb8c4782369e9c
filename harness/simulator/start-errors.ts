// The simulator's own failures as one line each, as the CLI says its own: a busy port, an option
// it does not know, an app file it cannot write. Anything else: its message's first line.
export function simulatorProblem(error: unknown, help: string): string {
  const e = error as NodeJS.ErrnoException & { port?: number; path?: string };
  const message = error instanceof Error ? error.message : String(error);
  if (e.code === 'EADDRINUSE') {
    return `port ${e.port ?? ''} is in use (another simulator still running?): stop it, or give --port N (0 picks a free one)`;
  }
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const first = message.split('\n')[0]!.replace(/\. To specify a positional argument.*$/, '');
    // parseArgs calls a value starting with '-' ambiguous: such a value is never a valid one here.
    const ambiguous = /^Option '(--[\w-]+)' argument is ambiguous\.$/.exec(first);
    if (ambiguous) return `${ambiguous[1]} takes no value starting with '-'; see ${help}`;
    return `${first}; see ${help}`;
  }
  if (e.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return `${message.split('\n')[0]}; see ${help}`;
  if (e.syscall === 'open' && e.path !== undefined) {
    return `cannot write the app file '${e.path}' (${e.code}): its folder must exist and be writable; give --secret-file PATH`;
  }
  // Messages of the simulator's own checks already begin with its name.
  return message.split('\n')[0]!.replace(/^simulator: /, '');
}

/** Prints the problem as `simulator: …` and exits 2, the CLI's code for bad usage or setup. */
export function exitWithProblem(error: unknown, help: string): never {
  process.stderr.write(`simulator: ${simulatorProblem(error, help)}\n`);
  process.exit(2);
}
