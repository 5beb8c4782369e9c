// `cloudforet-export as-of --out DEST --table costs|focus --at INSTANT [--from D --to D]`: a table
// exactly as a reader saw it at INSTANT, from the destination alone (functions/lib/faces/as-of.ts).
import { asOf } from '../functions/lib/faces/as-of.ts';
import { cliEntry } from './cli-entry.ts';

export const runAsOf = cliEntry(asOf, {
  input: (values) => ({ table: values.table, at: values.at, from: values.from, to: values.to }),
});
