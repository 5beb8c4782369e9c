// `cloudforet-export move-into-tenant --out DEST --tenant ID [--delete-source] [--force]`: moves a
// single-domain destination into its tenant folder tenants/ID/ (functions/lib/faces/move-into-tenant.ts).
// A refusal exits 2 [MOVE_REFUSED] before anything is written; a rerun finishes a killed move.
import { moveIntoTenantFace } from '../functions/lib/faces/move-into-tenant.ts';
import { cliEntry } from './cli-entry.ts';

export const runMoveIntoTenant = cliEntry(moveIntoTenantFace, {
  input: (values) => ({
    tenant: values.tenant,
    deleteSource: values['delete-source'],
    force: values.force,
  }),
});
