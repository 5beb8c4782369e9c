// `cloudforet-export inventory`: a snapshot of cloud services, regions, data sources and their
// accounts, as the inventory function exports it (functions/lib/faces/inventory.ts).
import { inventory } from '../functions/lib/faces/inventory.ts';
import { cliEntry } from './cli-entry.ts';

export const runInventory = cliEntry(inventory, {
  input: (values) => ({ snapshotDate: values['snapshot-date'], includeInactive: values['include-inactive'] }),
});
