// npm run simulator: the Cloudforet simulator on its own, for trying the CLI by hand. Serves a
// seeded domain and writes an app file the CLI takes as --secret-file; runs until Ctrl-C.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { addDays, utcDay } from '../functions/lib/dates.ts';
import { parseWholeNumber } from '../functions/lib/input/whole-number.ts';
import { startSimulator } from '../harness/simulator/index.ts';
import { exitWithProblem } from '../harness/simulator/start-errors.ts';

export const SIMULATOR_USAGE = `Usage: npm run simulator -- [options]
Starts the local Cloudforet simulator alone (the one npm start and the tests use) and prints its
endpoint, the app file for --secret-file and a check command to paste. Ctrl-C stops it.
It serves: cost data sources with daily cost rows (cost/analyze, cost/list, jobs, unified costs),
cloud services, regions, workspaces, projects, service accounts and budgets, all seeded; a
12-month cost retention as Cloudforet's; a DOMAIN_ADMIN app token valid for a year.
Options:
  --port N            port on 127.0.0.1 (default 8080; 0 picks a free one)
  --seed N            seed of the generated domain (default 7)
  --data-sources N    cost data sources (default 3)
  --days N            days of cost rows, ending yesterday (UTC), 1-365 (default 62)
  --rows-per-day N    cost rows per data source and day, about (default 60)
  --secret-file PATH  where to write the app file (default ./simulator-app.json)
  -h, --help          this text`;

const NUMBER_DEFAULTS = { port: 8080, seed: 7, 'data-sources': 3, days: 62, 'rows-per-day': 60 } as const;
const RANGES: Record<keyof typeof NUMBER_DEFAULTS, [number, number]> = {
  port: [0, 65_535],
  seed: [0, 2 ** 31],
  'data-sources': [1, 50],
  days: [1, 365],
  'rows-per-day': [1, 100_000],
};

function numberOption(values: Record<string, unknown>, name: keyof typeof NUMBER_DEFAULTS): number {
  const raw = values[name];
  if (raw === undefined) return NUMBER_DEFAULTS[name];
  const [min, max] = RANGES[name];
  const n = parseWholeNumber(String(raw), min, max);
  if (n === undefined) {
    process.stderr.write(
      `simulator: --${name} must be a whole number from ${min} to ${max} (got '${raw}')\n`,
    );
    process.exit(2);
  }
  return n;
}

const HELP = 'npm run simulator -- --help';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      ...Object.fromEntries(Object.keys(NUMBER_DEFAULTS).map((n) => [n, { type: 'string' as const }])),
      'secret-file': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(`${SIMULATOR_USAGE}\n`);
    process.exit(0);
  }
  const to = addDays(utcDay(new Date()), -1);
  const from = addDays(to, -(numberOption(values, 'days') - 1));
  const secretFile = resolve(values['secret-file'] ?? 'simulator-app.json');
  const options = {
    port: numberOption(values, 'port'),
    seed: numberOption(values, 'seed'),
    dataSources: numberOption(values, 'data-sources'),
    rowsPerDay: numberOption(values, 'rows-per-day'),
    from,
    to,
    retentionMonths: 12,
  };
  // Drawing the costs takes a few seconds: said once it does, so a refusal stays one line.
  const started = Date.now();
  const waiting = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    process.stderr.write(`simulator: drawing ${from}..${to} of costs and starting (${seconds} s)\n`);
  }, 2_000);
  const simulator = await startSimulator(options).finally(() => clearInterval(waiting));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void simulator.close().then(() => process.exit(0)));
  }
  await writeFile(
    secretFile,
    JSON.stringify({ name: 'simulator', client_secret: simulator.issueToken() }),
  ).catch(async (error: unknown) => {
    await simulator.close();
    throw error;
  });
  process.stdout.write(
    [
      `Cloudforet simulator at ${simulator.url} (domain ${simulator.domainId})`,
      `  cost rows ${from}..${to} for ${simulator.dataSourceIds().join(', ')}`,
      `  workspaces ${simulator.workspaceIds().join(', ')}`,
      `  app file (DOMAIN_ADMIN, 1 year): ${secretFile}`,
      'Try:',
      `  npm run cli -- check --endpoint ${simulator.url} --secret-file ${secretFile} --out ./export-out`,
      `  npm run cli -- costs --endpoint ${simulator.url} --secret-file ${secretFile} --out ./export-out --date ${to}`,
      'Ctrl-C stops it.',
      '',
    ].join('\n'),
  );
}

await main().catch((error: unknown) => exitWithProblem(error, HELP));
