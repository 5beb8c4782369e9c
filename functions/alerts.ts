// Lambda entry, daily after the cost export: publish each new cost anomaly and each budget on pace
// to pass a threshold to the alerts SNS topic, once (the sent-alerts ledger at the destination).
// Reads the destination only: no Cloudforet session, no secret.
import { alerts } from './lib/faces/alerts.ts';
import { lambdaFace } from './lib/faces/face.ts';
import { lambdaEntry } from './lib/lambda/entry.ts';

export const handler = lambdaEntry('alerts', lambdaFace(alerts));
