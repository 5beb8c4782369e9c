// Lambda entry: export the cost days of the event (by default the days that changed in this
// month and the previous one) to Parquet on S3, inline. Large backfills go to the state machine.
import { costs } from './lib/faces/costs.ts';
import { lambdaFace } from './lib/faces/face.ts';
import { lambdaEntry } from './lib/lambda/entry.ts';

export const handler = lambdaEntry('cost-export', lambdaFace(costs));
