// Step Functions, the daily run across tenants (infra/tenants-run.ts), last state: each tenant's
// outcome (its Summary's figures, or the state that failed and why) in one summary; a metric per
// tenant (the tenant alarms' figure); the run's lanes removed. Fails the execution, naming every
// failed tenant, when one failed: the others' exports stand.
import { parseTenantsOutcome, tenantsSummary } from './lib/costs/job/tenants-run.ts';
import { RunFailedError } from './lib/errors.ts';
import { acrossTenantsEntry } from './lib/lambda/tenants-entry.ts';

export const handler = acrossTenantsEntry('tenants-summary', {
  parse: parseTenantsOutcome,
  run: async (entry, request) => {
    const summary = await tenantsSummary(entry, request);
    entry.log.info('daily run across tenants finished', { ...summary });
    if (summary.failed.length > 0) {
      const named = summary.failed.map((f) => `${f.tenant} (${f.state}: ${f.error})`).join('; ');
      throw new RunFailedError(
        `${summary.failed.length} of ${summary.tenants} tenants failed: ${named}; the other tenants' exports stand`,
      );
    }
    return summary;
  },
});
