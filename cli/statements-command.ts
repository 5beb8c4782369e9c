// `cloudforet-export statements --month YYYY-MM --out DIR [--currency USD|KRW|JPY]`: one CSV and one
// HTML statement per workspace with costs in the month, from the unified costs `costs` exported
// under DIR (a directory or s3://bucket/prefix), written to DIR/statements/billed_month=YYYY-MM/:
// working copies, or a revision beside a statement the statements function archived. No Cloudforet request.
import { type PublishedStatement, publishStatement } from '../functions/lib/statements/publish.ts';
import {
  buildStatements,
  readProjectNames,
  readUnifiedMonth,
} from '../functions/lib/statements/statements.ts';
import { partitionPrefix, STATEMENTS } from '../functions/lib/storage/layout.ts';
import { joinKey } from '../functions/lib/storage/sink.ts';
import { SUPPORTED_CURRENCIES } from '../functions/lib/tables/unified-costs.ts';
import type { CommandContext } from './command-context.ts';
import { usageError } from './connection.ts';

export async function runStatements(ctx: CommandContext): Promise<number> {
  const { values, io } = ctx;
  const month = values.month;
  if (!month || !/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) {
    throw usageError(`--month must be YYYY-MM (got '${month ?? ''}')`);
  }
  const currency = (values.currency ?? 'USD').toUpperCase();
  if (!(SUPPORTED_CURRENCIES as readonly string[]).includes(currency)) {
    throw usageError(
      `--currency must be one of ${SUPPORTED_CURRENCIES.join(', ')} (got '${values.currency}')`,
    );
  }
  const sink = ctx.openSink();
  const rows = await readUnifiedMonth(sink, month);
  if (rows.length === 0) {
    throw usageError(
      `no unified costs of ${month} under ${sink.location}: run 'cloudforet-export costs' for that month first`,
    );
  }
  const folder = joinKey(sink.location, partitionPrefix(STATEMENTS, month).slice(0, -1));
  const statements = buildStatements(rows, month, currency, await readProjectNames(sink));
  const published: PublishedStatement[] = [];
  for (const s of statements)
    published.push(await publishStatement(sink, s, { archive: false, now: new Date() }));
  const summary = statements.map((s, i) => ({
    workspace: s.name,
    total: s.total,
    lines: s.lines.length,
    confirmed: s.confirmed,
    outcome: published[i]!.outcome,
    files: published[i]!.files,
  }));
  if (values.json) io.stdout.write(`${JSON.stringify({ month, currency, folder, statements: summary })}\n`);
  else {
    io.stdout.write(
      `statements ${month} (${currency}) -> ${folder}\n${summary
        .map(
          (s) =>
            `  ${s.workspace}: ${s.total.toFixed(2)} ${currency}, ${s.lines} lines${s.confirmed ? ', confirmed' : ''} (${s.outcome}${s.files.length > 0 ? `: ${s.files.join(', ')}` : ''})`,
        )
        .join('\n')}\n`,
    );
  }
  return 0;
}
