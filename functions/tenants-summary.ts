// Step Functions, the daily run across tenants (infra/tenants-run.ts), last state: each tenant's
// outcome (its Summary's figures, or the state that failed and why) in one summary; a metric per
// tenant (the tenant alarms' figure); the run's lanes removed. Fails the execution, naming every
// failed tenant, when one failed: the others' exports stand.
import { parseTenantsOutcome, tenantsSummary } from './lib/costs/job/tenants-run.ts';
import { RunFailedError } from './lib/errors.ts';
import { publishRunMetrics } from './lib/lambda/run-metrics.ts';
import { acrossTenantsEntry } from './lib/lambda/tenants-entry.ts';

export const handler = acrossTenantsEntry('tenants-summary', {
  parse: parseTenantsOutcome,
  run: async (entry, request) => {
    const summary = await tenantsSummary(entry, request);
    // Every tenant's figures each run, 0 included, so that each tenant's alarm has data to judge.
    for (const { tenant, ...figures } of summary.perTenant)
      publishRunMetrics('tenants-summary', figures, tenant);
    entry.log.info('daily run across tenants finished', { ...summary, perTenant: undefined });
    if (summary.failed.length > 0) {
      const named = summary.failed.map((f) => `${f.tenant} (${f.state}: ${f.error})`).join('; ');
      throw new RunFailedError(
        `${summary.failed.length} of ${summary.tenants} tenants failed: ${named}; the other tenants' exports stand`,
      );
    }
    return summary;
  },
});
