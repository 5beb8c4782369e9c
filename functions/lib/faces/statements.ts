// The monthly statements' face: the statements function (functions/statements.ts) archives the
// confirmed months; `cloudforet-export statements` writes working copies of the month it asks
// (EntrySettings.workingCopies). Both run runMonthlyStatements with the same month and currency
// checks (statements/monthly.ts). Its input: {"month": "YYYY-MM", "currency": "USD"}. S3 only.

import { partitionPrefix, STATEMENTS } from '../destination/layout.ts';
import { ExportError } from '../errors.ts';
import { connectSink } from '../lambda/connect-sink.ts';
import {
  parseStatementsEvent,
  runMonthlyStatements,
  type StatementsRequest,
  type StatementsSummary,
} from '../statements/monthly.ts';
import { joinKey, type Sink } from '../storage/sink.ts';
import type { Face } from './face.ts';

export const statements: Face<{ readonly sink: Sink }, StatementsRequest, StatementsSummary> = {
  label: 'statements',
  needs: 'sink',
  connect: connectSink,
  parse: (input, settings, now) => parseStatementsEvent(input, now, settings),
  run: async ({ sink }, request) => {
    const summary = await runMonthlyStatements({ sink, now: new Date() }, request);
    const none = request.workingCopies && summary.months.find((m) => m.status === 'no unified costs');
    if (none) {
      throw new ExportError(
        'CLI_USAGE',
        `no unified costs of ${none.month} under ${sink.location}: run 'cloudforet-export costs' for that month first`,
      );
    }
    return summary;
  },
  describe: (s, { sink }) =>
    workingCopies(s, sink).flatMap(({ month, folder, statements }) => [
      `statements ${month} (${s.currency}) -> ${folder}`,
      ...statements.map(
        (w) =>
          `  ${w.workspace}: ${w.total.toFixed(2)} ${s.currency}, ${w.lines} lines${w.confirmed ? ', confirmed' : ''} (${w.outcome}${w.files.length > 0 ? `: ${w.files.join(', ')}` : ''})`,
      ),
    ]),
  json: (s, { sink }) => {
    const [only] = workingCopies(s, sink);
    return { month: only?.month, currency: s.currency, folder: only?.folder, statements: only?.statements };
  },
  figures: (s) => ({ exported: s.archived + s.revised, unchanged: s.unchanged }),
  summary: (s) => [
    'statements checked',
    {
      ...s,
      months: s.months.map((m) => ({ month: m.month, status: m.status, statements: m.statements.length })),
    },
  ],
};

/** Each month's working copies as people read them: the workspace, its total and what was written. */
function workingCopies(s: StatementsSummary, sink: Sink) {
  return s.months.map((m) => ({
    month: m.month,
    folder: joinKey(sink.location, partitionPrefix(STATEMENTS, m.month).slice(0, -1)),
    statements: (m.built ?? []).map((b, i) => ({
      workspace: b.name,
      total: b.total,
      lines: b.lines.length,
      confirmed: b.confirmed,
      outcome: m.statements[i]!.outcome,
      files: m.statements[i]!.files,
    })),
  }));
}
