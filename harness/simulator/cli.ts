// Runs a simulator on its own: `npx tsx harness/simulator/cli.ts --port 8080 --seed 1`.
// Prints the base URL and a domain-admin token, then serves until interrupted.

import { parseArgs } from 'node:util';
import { type SimulatorOptions, startSimulator } from './index.ts';
import { exitWithProblem } from './start-errors.ts';

const USAGE = `usage: tsx harness/simulator/cli.ts [--port N] [--seed N] [--data-sources N] [--from YYYY-MM-DD]
  [--to YYYY-MM-DD] [--rows-per-day N] [--exact-rows] [--cloud-services N] [--workspaces N] [--latency-ms N]`;

const NUMBERS = {
  port: 'port',
  seed: 'seed',
  'data-sources': 'dataSources',
  'rows-per-day': 'rowsPerDay',
  'cloud-services': 'cloudServices',
  workspaces: 'workspaces',
  'latency-ms': 'latencyMs',
} as const;
/** Whole numbers only, within what the simulator serves in seconds (1e9 workspaces never start). */
const RANGES: Record<keyof typeof NUMBERS, readonly [number, number]> = {
  port: [0, 65_535],
  seed: [0, 2 ** 31],
  'data-sources': [1, 50],
  'rows-per-day': [1, 100_000],
  'cloud-services': [0, 10_000],
  workspaces: [1, 100],
  'latency-ms': [0, 60_000],
};

function readOptions(argv: string[]): SimulatorOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...Object.fromEntries(Object.keys(NUMBERS).map((name) => [name, { type: 'string' as const }])),
      from: { type: 'string' },
      to: { type: 'string' },
      'exact-rows': { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const options: SimulatorOptions = {
    from: values.from as string | undefined,
    to: values.to as string | undefined,
  };
  options.exactRowsPerDay = values['exact-rows'] === true;
  for (const [flag, key] of Object.entries(NUMBERS)) {
    const raw = values[flag as keyof typeof values];
    if (raw === undefined) continue;
    const [min, max] = RANGES[flag as keyof typeof NUMBERS];
    const text = String(raw);
    const value = Number(text);
    if (!/^\d{1,9}$/.test(text) || value < min || value > max)
      throw new Error(`--${flag} must be a whole number from ${min} to ${max} (got '${text}')`);
    options[key] = value;
  }
  return options;
}

async function main(): Promise<void> {
  const simulator = await startSimulator(readOptions(process.argv.slice(2)));
  console.log(`Cloudforet simulator listening on ${simulator.url}`);
  console.log(`domain: ${simulator.domainId}`);
  console.log(`data sources: ${simulator.dataSourceIds().join(', ')}`);
  console.log(`workspaces: ${simulator.workspaceIds().join(', ')}`);
  console.log(`token (DOMAIN_ADMIN, 1 year):\n${simulator.issueToken()}`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void simulator.close().then(() => process.exit(0));
    });
  }
}

await main().catch((error: unknown) => exitWithProblem(error, 'tsx harness/simulator/cli.ts --help'));
