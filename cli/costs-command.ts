// `cloudforet-export costs`: cost rows for a day or a range, as the cost function exports them
// (functions/lib/faces/costs.ts); --verify is the CLI's own.
import { costs } from '../functions/lib/faces/costs.ts';
import { cliEntry } from './cli-entry.ts';

export const runCosts = cliEntry(costs, {
  input: (values) => ({
    date: values.date,
    from: values.from,
    to: values.to,
    dataSourceIds: values['data-source'],
    force: values.force,
  }),
  options: (values) => ({ verify: values.verify === true, costReports: values['cost-reports'] === true }),
});
