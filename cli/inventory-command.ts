// `cloudforet-export inventory`: a snapshot of cloud services, regions, data sources and their
// accounts, as the inventory function exports it.
import { parseInventoryEvent } from '../functions/lib/inventory/event.ts';
import { type InventoryRunSummary, runInventoryExport } from '../functions/lib/inventory/run.ts';
import type { CommandContext } from './command-context.ts';
import { announceDestination, progressReporter } from './progress.ts';

export async function runInventory(ctx: CommandContext): Promise<number> {
  const { values, io } = ctx;
  const request = parseInventoryEvent(
    { snapshotDate: values['snapshot-date'], includeInactive: values['include-inactive'] },
    new Date(),
  );
  const sink = ctx.openSink();
  announceDestination(io.stderr, 'inventory', sink.location);
  const session = await ctx.openSession();
  const progress = progressReporter(io.stderr, 'inventory');
  const summary = await runInventoryExport(
    {
      client: session.client,
      sink,
      credential: session.credential,
      signal: ctx.signal,
      concurrency: ctx.concurrency,
      log: ctx.log,
      onProgress: progress.update,
    },
    request,
  );
  progress.done();
  io.stdout.write(values.json ? `${JSON.stringify(summary)}\n` : describeInventory(summary));
  return summary.failed === 0 ? 0 : 1;
}

function describeInventory(s: InventoryRunSummary): string {
  const inactive = s.includeInactive ? ', inactive included' : '';
  const lines = [
    `inventory snapshot ${s.snapshotDate} (${s.scope}${inactive}) -> ${s.destination}`,
    ...Object.entries(s.tables).map(
      ([table, t]) =>
        `  ${table}: ${t.outcome}, ${t.rows.toLocaleString('en-US')} rows, ${t.bytes.toLocaleString('en-US')} bytes${t.reason ? ` (${t.reason})` : ''}`,
    ),
    `  ${s.rows.toLocaleString('en-US')} rows in ${(s.durationMs / 1000).toFixed(1)} s, ${s.failed} failed`,
    ...s.failures.map((f) => `  FAILED ${f.table}: ${f.message} [${f.code}]`),
  ];
  return `${lines.join('\n')}\n`;
}
