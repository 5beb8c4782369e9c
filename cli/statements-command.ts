// `cloudforet-export statements --month YYYY-MM --out DIR [--currency USD|KRW|JPY]`: one CSV and one
// HTML statement per workspace with costs in the month, from the unified costs `costs` exported
// under DIR (a directory or s3://bucket/prefix), written to DIR/statements/billed_month=YYYY-MM/:
// working copies, or a revision beside a statement the statements function archived. No Cloudforet
// request. The statements function's face and checks (functions/lib/faces/statements.ts).
import { statements } from '../functions/lib/faces/statements.ts';
import { cliEntry } from './cli-entry.ts';

export const runStatements = cliEntry(statements, {
  input: (values) => ({ month: values.month, currency: values.currency?.toUpperCase() }),
});
