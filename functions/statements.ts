// Lambda entry, daily after the cost export: archive the statement of each workspace for every
// month Cloudforet has confirmed, and a revision beside it when a confirmed month is restated.
// {} looks at the last three months; {"month": "YYYY-MM", "currency": "KRW"} at one. S3 only.
import { lambdaFace } from './lib/faces/face.ts';
import { statements } from './lib/faces/statements.ts';
import { lambdaEntry } from './lib/lambda/entry.ts';

export const handler = lambdaEntry('statements', lambdaFace(statements));
