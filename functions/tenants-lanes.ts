// Step Functions, the daily run across tenants (infra/tenants-run.ts), state Lanes: every planned
// tenant's units dealt into lanes under the run's caps (costs/job/lanes.ts), each lane written
// where the units' function reads it, their list where the Distributed Map's ItemReader does.
import { parseLanesRequest, writeLanes } from './lib/costs/job/tenants-run.ts';
import { acrossTenantsEntry } from './lib/lambda/tenants-entry.ts';

export const handler = acrossTenantsEntry('tenants-lanes', {
  parse: parseLanesRequest,
  run: async (entry, request) => {
    const out = await writeLanes(entry, request);
    entry.log.info('lanes planned', { ...out });
    return out;
  },
});
