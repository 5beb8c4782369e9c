// Lambda entry, daily after the cost export: archive the statement of each workspace for every
// month Cloudforet has confirmed, and a revision beside it when a confirmed month is restated.
// {} looks at the last three months; {"month": "YYYY-MM", "currency": "KRW"} at one. S3 only.
import { connectSink } from './lib/lambda/connect-sink.ts';
import { lambdaEntry } from './lib/lambda/entry.ts';
import { parseStatementsEvent, runMonthlyStatements } from './lib/statements/monthly.ts';

export const handler = lambdaEntry('statements', {
  connect: connectSink,
  parse: (event, _config, now) => parseStatementsEvent(event, now),
  run: ({ sink }, request) => runMonthlyStatements({ sink, now: new Date() }, request),
  figures: (s) => ({ exported: s.archived + s.revised, unchanged: s.unchanged }),
  summary: (s) => [
    'statements checked',
    {
      ...s,
      months: s.months.map((m) => ({ month: m.month, status: m.status, statements: m.statements.length })),
    },
  ],
});
