// `cloudforet-export statements --month YYYY-MM --out DIR [--currency USD|KRW|JPY]`: one CSV and one
// HTML statement per workspace with costs in the month, from the unified costs `costs` exported
// under DIR, written to DIR/statements/billed_month=YYYY-MM/. No Cloudforet request.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  buildStatements,
  readProjectNames,
  readUnifiedMonth,
  statementCsv,
  statementHtml,
} from '../functions/lib/statements/statements.ts';
import { parseDestination } from '../functions/lib/storage/sink.ts';
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
  const destination = parseDestination(ctx.openSink().location);
  if (destination.kind !== 'dir') {
    throw usageError(
      'statements read a local export for now: give --out a directory (copy the S3 prefix down first)',
    );
  }
  const rows = await readUnifiedMonth(destination.path, month);
  if (rows.length === 0) {
    throw usageError(
      `no unified costs of ${month} under ${destination.path}: run 'cloudforet-export costs' for that month first`,
    );
  }
  const folder = join(destination.path, 'statements', `billed_month=${month}`);
  await mkdir(folder, { recursive: true });
  const statements = buildStatements(rows, month, currency, await readProjectNames(destination.path));
  for (const s of statements) {
    await writeFile(join(folder, `${s.name}.csv`), statementCsv(s));
    await writeFile(join(folder, `${s.name}.html`), statementHtml(s));
  }
  const summary = statements.map((s) => ({
    workspace: s.name,
    total: s.total,
    lines: s.lines.length,
    confirmed: s.confirmed,
  }));
  if (values.json) io.stdout.write(`${JSON.stringify({ month, currency, folder, statements: summary })}\n`);
  else {
    io.stdout.write(
      `statements ${month} (${currency}) -> ${folder}\n${summary
        .map(
          (s) =>
            `  ${s.workspace}: ${s.total.toFixed(2)} ${currency}, ${s.lines} lines${s.confirmed ? ', confirmed' : ''}`,
        )
        .join('\n')}\n`,
    );
  }
  return 0;
}
