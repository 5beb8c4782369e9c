// Lambda entry: snapshot Cloudforet inventory (cloud services, regions, data sources and their
// accounts, identity names, budgets) to Parquet on S3 for the event's snapshot date.
import { lambdaFace } from './lib/faces/face.ts';
import { inventory } from './lib/faces/inventory.ts';
import { lambdaEntry } from './lib/lambda/entry.ts';

export const handler = lambdaEntry('inventory-export', lambdaFace(inventory));
