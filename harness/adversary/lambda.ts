// The cost function's real handler (functions/cost-export.ts), invoked as Lambda does, on a world
// whose destination is S3: its log lines (stdout in Lambda) are kept for the secret check.
import type { Context } from 'aws-lambda';
import { handler } from '../../functions/cost-export.ts';
import type { RunOutcome } from './runs.ts';
import type { World } from './world.ts';

export async function invokeCostExport(world: World, event: Record<string, unknown>): Promise<RunOutcome> {
  const lines: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array) =>
    lines.push(String(chunk)) > 0) as typeof process.stdout.write;
  const context = {
    awsRequestId: `adversary-${Date.now()}`,
    functionName: 'cost-export',
    getRemainingTimeInMillis: () => 900_000,
  } as unknown as Context;
  try {
    const summary = (await handler(event, context)) as { from?: string; to?: string };
    lines.push(JSON.stringify(summary));
    return { code: 0, from: summary.from, to: summary.to };
  } catch (error) {
    lines.push(String((error as Error).message));
    return { code: 1 };
  } finally {
    process.stdout.write = write;
    world.texts.push(lines.join(''));
  }
}
