// One world of the adversary: a fresh simulator (the same seeded domain every time), the hostile
// gateway in front of it, an empty destination directory and the app's secret file. Each
// fast-check run gets its own world, so a sequence replays alone.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addDays, daysBetween, utcDay } from '../../functions/lib/dates.ts';
import { lastDayOf, monthBefore } from '../../functions/lib/destination/compaction-state.ts';
import { type Simulator, startSimulator } from '../simulator/index.ts';
import { appFolder } from '../tokens.ts';
import { type Gateway, startGateway } from './gateway.ts';
import { type S3Destination, startS3Destination } from './s3-world.ts';

export interface WorldOptions {
  /** The simulator's seed: the domain's rows. */
  readonly seed?: number;
  readonly dataSources?: number;
  /** Enough workspaces (accounts) that a month of cost/analyze needs a second page. */
  readonly workspaces?: number;
  readonly rowsPerDay?: number;
  /** The destination on S3 (s3rver), starting from this s3rver data directory when given. */
  readonly s3?: { readonly template?: string };
}

export interface World {
  readonly sim: Simulator;
  readonly gateway: Gateway;
  /** The destination directory, or (S3) the mirror of the bucket the checks read. */
  readonly out: string;
  /** What runs write to: `out`, or s3://bucket/prefix. */
  readonly destination: string;
  readonly s3?: S3Destination;
  readonly secretFile: string;
  /** The client secret: it may appear in no output and no stored byte. */
  readonly token: string;
  readonly dataSources: readonly string[];
  /** The days Cloudforet has rows for (fixed at start): last days of month-2 up to yesterday. */
  readonly days: readonly string[];
  /** Months: [two back (confirmed), previous, current]. */
  readonly months: readonly [string, string, string];
  /** The exporter's clock (`now`), moved by the clock command; starts at the real time. */
  now: Date;
  /** Everything a run printed or threw, for the secret check. */
  readonly texts: string[];
  close(): Promise<void>;
}

/** The world's days and months, from the real clock: what commands name. */
export function worldCalendar(realNow = new Date()): {
  days: string[];
  months: [string, string, string];
} {
  const today = utcDay(realNow);
  const current = today.slice(0, 7);
  const previous = monthBefore(current);
  const twoBack = monthBefore(previous);
  return {
    days: daysBetween(addDays(lastDayOf(twoBack), -2), addDays(today, -1)),
    months: [twoBack, previous, current],
  };
}

export async function startWorld(opts: WorldOptions = {}): Promise<World> {
  const realNow = new Date();
  const { days, months } = worldCalendar(realNow);
  const from = days[0]!;
  const to = days.at(-1)!;
  const sim = await startSimulator({
    seed: opts.seed ?? 45,
    dataSources: opts.dataSources ?? 2,
    workspaces: opts.workspaces ?? 2,
    from,
    to,
    rowsPerDay: opts.rowsPerDay ?? 12,
  });
  const gateway = await startGateway(sim.url);
  const token = sim.issueToken();
  const { dir, secretFile } = await appFolder('adversary', token);
  const out = await mkdtemp(join(tmpdir(), 'adversary-out-'));
  const s3 = opts.s3 ? await startS3Destination(gateway.url, token, opts.s3.template) : undefined;
  return {
    sim,
    gateway,
    out,
    destination: s3?.destination ?? out,
    ...(s3 && { s3 }),
    secretFile,
    token,
    dataSources: sim.dataSourceIds(),
    days,
    months,
    now: realNow,
    texts: [],
    close: async () => {
      await s3?.close();
      await gateway.close();
      await sim.close();
      await rm(out, { recursive: true, force: true });
      await rm(dir, { recursive: true, force: true });
    },
  };
}
